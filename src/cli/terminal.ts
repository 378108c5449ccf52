/**
 * Whether output goes to a person at a real terminal. A pseudo-terminal of 0x0 (some CI runners, `script`) says
 * isTTY but is nobody's screen: a spinner redrawing on it floods the log, so it counts as no terminal.
 */
const MIN_COLUMNS = 20;

const isSet = (value: string | undefined) => value !== undefined && value !== '' && !/^(0|false|no|off)$/i.test(value);

/** `CI` set to anything but a false value: GitHub Actions, GitLab CI and most others set `CI=true`. */
export const inCi = () => isSet(process.env.CI);

export function isPersonsTerminal(stream: NodeJS.WriteStream): boolean {
  return Boolean(stream.isTTY) && (stream.columns ?? 0) >= MIN_COLUMNS && (stream.rows ?? 0) >= 1 && !inCi();
}

/** Colours: on a person's terminal, unless `NO_COLOR` says no; `FORCE_COLOR` is left to chalk. */
export function coloursWanted(stream: NodeJS.WriteStream): boolean {
  if (process.env.FORCE_COLOR !== undefined) return true;
  return process.env.NO_COLOR === undefined || process.env.NO_COLOR === '' ? isPersonsTerminal(stream) : false;
}
