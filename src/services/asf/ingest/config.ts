import { ScriptCompileError } from '../painless/errors.js';
import { parseScript, type Stmt } from '../painless/parser.js';
import { compileTemplate, MEDIA_TYPES, TemplateError, type MediaType, type Template } from './template.js';

/** A pipeline the emulator cannot run as written: the answer is 400 with this message, nothing is stored. */
export class PipelineConfigError extends Error {}

/**
 * The options of one processor, read once when the pipeline is compiled. Each read marks the option as known;
 * `done()` refuses any option left over, naming it, rather than ignoring what the emulator does not do.
 */
export class ProcessorConfig {
  private readonly used = new Set<string>();

  constructor(
    readonly type: string,
    private readonly options: Record<string, unknown>,
    /** Where the processor is, for messages: `processors[2]`. */
    readonly where: string,
  ) {}

  fail(message: string): never {
    const tag = typeof this.options.tag === 'string' ? `, tag ${this.options.tag}` : '';
    throw new PipelineConfigError(`${this.where} (${this.type}${tag}): ${message}`);
  }

  has(name: string): boolean {
    return Object.hasOwn(this.options, name);
  }

  raw(name: string): unknown {
    this.used.add(name);
    return Object.hasOwn(this.options, name) ? this.options[name] : undefined;
  }

  required(name: string): unknown {
    const value = this.raw(name);
    if (value === undefined) this.fail(`[${name}] required property is missing`);
    return value;
  }

  string(name: string): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') this.fail(`[${name}] property isn't a string, but of type [${typeName(value)}]`);
    return value;
  }

  requiredString(name: string): string {
    this.required(name);
    return this.string(name)!;
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (typeof value === 'boolean') return value;
    // The search engine also takes the strings "true" and "false".
    if (value === 'true' || value === 'false') return value === 'true';
    this.fail(`[${name}] property isn't a boolean, but of type [${typeName(value)}]`);
  }

  mediaType(): MediaType {
    const value = this.string('media_type') ?? 'application/json';
    if (!(MEDIA_TYPES as readonly string[]).includes(value))
      this.fail(`[media_type] must be one of ${MEDIA_TYPES.join(', ')}; got [${value}]`);
    return value as MediaType;
  }

  template(name: string, text: string, mediaType?: MediaType): Template {
    try {
      return compileTemplate(text, mediaType);
    } catch (err) {
      if (err instanceof TemplateError) this.fail(`[${name}] ${err.message}`);
      throw err;
    }
  }

  script(name: string, source: string): Stmt[] {
    try {
      return parseScript(source);
    } catch (err) {
      if (err instanceof ScriptCompileError)
        this.fail(
          `[${name}] cannot be compiled: ${err.reason} (at character ${err.at} of ` +
            `${JSON.stringify(excerpt(source, err.at))})`,
        );
      throw err;
    }
  }

  /** Refuses the options no read asked for. */
  done(): void {
    const unknown = Object.keys(this.options).filter((k) => !this.used.has(k));
    if (unknown.length > 0)
      this.fail(
        `the processor [${this.type}] doesn't support one or more provided configuration parameters ` +
          `[${unknown.join(', ')}] in the emulator`,
      );
  }
}

function excerpt(source: string, at: number): string {
  const start = Math.max(0, at - 20);
  return `${start > 0 ? '…' : ''}${source.slice(start, at + 20)}${at + 20 < source.length ? '…' : ''}`;
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}
