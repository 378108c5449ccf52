import { sizeOf, spend, type Budget } from '../painless/budget.js';
import { runScript } from '../painless/evaluator.js';
import { fromJson } from '../painless/json.js';
import { javaTrim } from '../painless/methods.js';
import { isList, isMap, javaString, javaType, type Value } from '../painless/values.js';
import { isPlainObject } from '../../../store/index.js';
import { PipelineConfigError, ProcessorConfig } from './config.js';
import { convertProcessor } from './convert.js';
import type { IngestDocument } from './document.js';
import { ingestFailure, scriptFailure } from './errors.js';
import type { MediaType } from './template.js';

export type Execute = (doc: IngestDocument, budget: Budget) => void;

export interface CompiledProcessor {
  type: string;
  tag?: string;
  /** The `if` option: the processor runs only where it answers true. */
  condition?: (doc: IngestDocument, budget: Budget) => boolean;
  ignoreFailure: boolean;
  onFailure?: CompiledProcessor[];
  execute: Execute;
}

/** A processor option's value where strings are templates, also inside objects and lists (keys too). */
type ValueSource = (doc: IngestDocument) => Value;

function valueSource(cfg: ProcessorConfig, name: string, raw: unknown, mediaType: MediaType): ValueSource {
  if (typeof raw === 'string') {
    const template = cfg.template(name, raw, mediaType);
    return template.isTemplate ? (doc) => template.render(doc) : () => raw;
  }
  if (Array.isArray(raw)) {
    const items = raw.map((item) => valueSource(cfg, name, item, mediaType));
    return (doc) => items.map((item) => item(doc));
  }
  if (raw !== null && typeof raw === 'object') {
    const entries = Object.entries(raw).map(
      ([k, v]) => [cfg.template(name, k, mediaType), valueSource(cfg, name, v, mediaType)] as const,
    );
    return (doc) => new Map(entries.map(([k, v]) => [k.render(doc), v(doc)]));
  }
  return () => fromJson(raw);
}

/** A deep copy, so that a field copied from another does not share its maps and lists. */
function copyValue(v: Value): Value {
  if (isMap(v)) return new Map([...v].map(([k, x]) => [k, copyValue(x)]));
  if (isList(v)) return v.map(copyValue);
  return v;
}

function set(cfg: ProcessorConfig): Execute {
  const field = cfg.template('field', cfg.requiredString('field'));
  const override = cfg.boolean('override', true);
  const ignoreEmpty = cfg.boolean('ignore_empty_value', false);
  const mediaType = cfg.mediaType();
  if (cfg.has('value') && cfg.has('copy_from'))
    cfg.fail('[copy_from] cannot set both `copy_from` and `value` in the same processor');
  const copyFrom = cfg.string('copy_from');
  const rawValue = copyFrom === undefined ? cfg.required('value') : undefined;
  const value = copyFrom === undefined ? valueSource(cfg, 'value', rawValue, mediaType) : undefined;
  const templated = typeof rawValue === 'string' && rawValue.includes('{{');
  return (doc, budget) => {
    const path = field.render(doc);
    if (!override && doc.has(path) && doc.get(path) !== null) return;
    if (copyFrom !== undefined) {
      const copied = doc.getOptional(copyFrom, ignoreEmpty);
      if (ignoreEmpty && (copied === null || copied === '')) return;
      spend(budget, sizeOf(copied));
      doc.set(path, copyValue(copied));
      return;
    }
    const resolved = value!(doc);
    spend(budget, sizeOf(resolved));
    if (ignoreEmpty && templated && (resolved === null || resolved === '')) return;
    doc.set(path, resolved);
  };
}

function append(cfg: ProcessorConfig): Execute {
  const field = cfg.template('field', cfg.requiredString('field'));
  const mediaType = cfg.mediaType();
  const value = valueSource(cfg, 'value', cfg.required('value'), mediaType);
  const allowDuplicates = cfg.boolean('allow_duplicates', true);
  return (doc, budget) => {
    const values = value(doc);
    spend(budget, sizeOf(values));
    doc.append(field.render(doc), isList(values) ? values : [values], allowDuplicates, budget);
  };
}

function remove(cfg: ProcessorConfig): Execute {
  const raw = cfg.required('field');
  const names = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(names) || names.length === 0 || !names.every((n) => typeof n === 'string'))
    cfg.fail('[field] must be a field name or a non-empty list of field names');
  const fields = (names as string[]).map((name) => cfg.template('field', name));
  const ignoreMissing = cfg.boolean('ignore_missing', false);
  return (doc) => {
    for (const field of fields) {
      const path = field.render(doc);
      if (ignoreMissing && !doc.has(path)) continue;
      doc.remove(path);
    }
  };
}

function rename(cfg: ProcessorConfig): Execute {
  const field = cfg.template('field', cfg.requiredString('field'));
  const target = cfg.template('target_field', cfg.requiredString('target_field'));
  const ignoreMissing = cfg.boolean('ignore_missing', false);
  const override = cfg.boolean('override', false);
  return (doc) => {
    const from = field.render(doc);
    const to = target.render(doc);
    if (!doc.has(from)) {
      if (ignoreMissing) return;
      throw ingestFailure(`field [${from}] doesn't exist`);
    }
    if (doc.has(to) && !override) throw ingestFailure(`field [${to}] already exists`);
    const value = doc.get(from);
    doc.remove(from);
    try {
      doc.set(to, value);
    } catch (err) {
      doc.set(from, value);
      throw err;
    }
  };
}

/** `lowercase`, `uppercase`, `trim`: a string, or each string of a list. */
function stringProcessor(change: (s: string) => string) {
  return (cfg: ProcessorConfig): Execute => {
    const field = cfg.requiredString('field');
    const target = cfg.string('target_field') ?? field;
    const ignoreMissing = cfg.boolean('ignore_missing', false);
    return (doc, budget) => {
      const value = doc.getOptional(field, ignoreMissing);
      if (value === null) {
        if (ignoreMissing) return;
        throw ingestFailure(`field [${field}] is null, cannot process it.`);
      }
      spend(budget, sizeOf(value));
      if (isList(value)) {
        doc.set(
          target,
          value.map((item) => {
            if (typeof item !== 'string')
              throw ingestFailure(
                `value [${javaString(item)}] of type [${javaType(item)}] in list field [${field}] cannot be ` +
                  `cast to [java.lang.String]`,
              );
            return change(item);
          }),
        );
        return;
      }
      if (typeof value !== 'string')
        throw ingestFailure(`field [${field}] of type [${javaType(value)}] cannot be cast to [java.lang.String]`);
      doc.set(target, change(value));
    };
  };
}

/** `lang`, `source`, `params` of a script (the `script` processor, an `if` given as an object). */
function scriptOptions(cfg: ProcessorConfig, name: string, options: Record<string, unknown>) {
  const lang = options.lang ?? 'painless';
  if (lang !== 'painless')
    cfg.fail(`[${name}] lang [${String(lang)}] is not supported; the emulator runs painless scripts only`);
  if (options.id !== undefined)
    cfg.fail(`[${name}] stored scripts (id) are not supported by the emulator; give the script's source`);
  if (typeof options.source !== 'string') cfg.fail(`[${name}] the script's [source] is required and must be a string`);
  const params = options.params ?? {};
  if (!isPlainObject(params)) cfg.fail(`[${name}] [params] must be an object`);
  return { program: cfg.script(name, options.source as string), params };
}

function script(cfg: ProcessorConfig): Execute {
  const options = Object.fromEntries(
    ['lang', 'id', 'source', 'params'].map((k) => [k, cfg.raw(k)]).filter(([, v]) => v !== undefined),
  );
  const { program, params } = scriptOptions(cfg, 'source', options);
  return (doc, budget) => {
    try {
      runScript(program, { ctx: doc.ctx, params: fromJson(params), budget });
    } catch (err) {
      throw scriptFailure(err);
    }
  };
}

function condition(cfg: ProcessorConfig): CompiledProcessor['condition'] {
  const raw = cfg.raw('if');
  if (raw === undefined) return undefined;
  const options = typeof raw === 'string' ? { source: raw } : raw;
  if (!isPlainObject(options)) cfg.fail('[if] must be a script: a string, or an object with source');
  const { program, params } = scriptOptions(cfg, 'if', options as Record<string, unknown>);
  return (doc, budget) => {
    let result;
    try {
      result = runScript(program, { ctx: doc.ctx, params: fromJson(params), budget, readOnly: true });
    } catch (err) {
      throw scriptFailure(err);
    }
    if (typeof result !== 'boolean')
      throw ingestFailure(`the if condition must answer true or false; it answered ${javaType(result)}`);
    return result;
  };
}

const FACTORIES: Record<string, (cfg: ProcessorConfig) => Execute> = {
  append,
  convert: convertProcessor,
  lowercase: stringProcessor((s) => s.toLowerCase()),
  remove,
  rename,
  script,
  set,
  trim: stringProcessor(javaTrim),
  uppercase: stringProcessor((s) => s.toUpperCase()),
};

export const SUPPORTED_PROCESSORS = Object.keys(FACTORIES);

export function compileProcessors(list: unknown, where: string): CompiledProcessor[] {
  if (!Array.isArray(list)) throw new PipelineConfigError(`${where} must be an array of processors`);
  return list.map((entry, i) => compileProcessor(entry, `${where}[${i}]`));
}

function compileProcessor(entry: unknown, where: string): CompiledProcessor {
  if (!isPlainObject(entry) || Object.keys(entry).length !== 1)
    throw new PipelineConfigError(`${where} must be an object with one key, the processor's type, like {"set": {...}}`);
  const [type, options] = Object.entries(entry)[0];
  if (!Object.hasOwn(FACTORIES, type)) {
    throw new PipelineConfigError(
      `${where}: the processor [${type}] is not supported by the emulator; it runs ${SUPPORTED_PROCESSORS.join(', ')}`,
    );
  }
  if (!isPlainObject(options))
    throw new PipelineConfigError(`${where} (${type}): the processor's options must be an object`);
  const cfg = new ProcessorConfig(type, options, where);
  const tag = cfg.string('tag');
  cfg.string('description');
  const ignoreFailure = cfg.boolean('ignore_failure', false);
  const onFailureRaw = cfg.raw('on_failure');
  if (onFailureRaw !== undefined && (!Array.isArray(onFailureRaw) || onFailureRaw.length === 0))
    cfg.fail('[on_failure] processors list cannot be empty');
  const onFailure = onFailureRaw === undefined ? undefined : compileProcessors(onFailureRaw, `${where}.on_failure`);
  const compiled: CompiledProcessor = {
    type,
    tag,
    condition: condition(cfg),
    ignoreFailure,
    onFailure,
    execute: FACTORIES[type](cfg),
  };
  cfg.done();
  return compiled;
}
