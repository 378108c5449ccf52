import { badRequest } from '../../server/errors.js';

/**
 * Names of named configurations (7/CMP use case 3): letters, digits, `_` and `-`, at most 64 characters, and not only
 * digits, because a last topic level of digits is a KP1 request id (`config/json/7` asks the default configuration).
 */
const CONFIG_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const CONFIG_NAME_RULE =
  'letters, digits, _ and -, 1 to 64 characters, not only digits (a last topic level of digits is a request id), ' +
  'not "status" or "error" (config/json/status is the push topic of the default configuration)';

/** `status` and `error` end KP1 reply and push topics: `config/json/status` must stay the default's push. */
export const isReservedConfigName = (name: string) => name === 'status' || name === 'error';

/** The name, checked; 400 saying the rule otherwise. */
export function checkConfigName(name: string): string {
  if (!CONFIG_NAME.test(name) || /^\d+$/.test(name) || isReservedConfigName(name))
    throw badRequest(
      `"${name.length > 80 ? `${name.slice(0, 80)}...` : name}" is not a configuration name: ${CONFIG_NAME_RULE}.`,
    );
  return name;
}

/** `config/json` or `config/json/<configName>`: the KP1 resource of a configuration, default or named. */
export const configResource = (base: 'config/json' | 'applied/json', configName?: string) =>
  configName === undefined ? base : `${base}/${configName}`;
