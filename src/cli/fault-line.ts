/** A fault as the control plane lists it: its id, its kind and its settings. */
type Fault = { id: string; kind: string } & Record<string, unknown>;

/** One fault as a line a person reads: its id, its kind, then its settings as key=value (`faults list`, `status`). */
export function faultLine(fault: Fault, separator = '\t'): string {
  const { id, kind, ...rest } = fault;
  const settings = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return [id, kind, settings.join(' ')].join(separator);
}
