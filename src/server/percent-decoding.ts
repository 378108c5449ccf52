/** `decodeURIComponent`, or undefined where the text is not correctly percent-encoded (a lone `%`, broken UTF-8). */
export function percentDecoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
