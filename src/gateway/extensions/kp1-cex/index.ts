// KP1 extension cex (command execution): the device side of the command invocation service.
import {
  checkCommandType,
  outstandingCommands,
  reportResults,
  type DeviceResult,
} from '../../../services/cex/commands.js';
import { describeValue, invalidPayload, isPlainObject, requiredObject, type Kp1Extension } from '../../extension.js';

const RESULT_FIELDS = ['id', 'statusCode', 'reasonPhrase', 'payload'];

function resultsOf(payload: unknown): DeviceResult[] {
  if (!Array.isArray(payload) || payload.length === 0) {
    throw invalidPayload(
      `The result payload must be a non-empty array like [{"id": 1, "statusCode": 200, "payload": ...}]; got ` +
        `${payload === undefined ? 'nothing' : describeValue(payload)}.`,
    );
  }
  const seen = new Set<number>();
  return payload.map((item, i) => {
    if (!isPlainObject(item))
      throw invalidPayload(`Result [${i}] must be an object with id and statusCode; got ${describeValue(item)}.`);
    const unknown = Object.keys(item).filter((k) => !RESULT_FIELDS.includes(k));
    if (unknown.length > 0)
      throw invalidPayload(
        `Result [${i}] has unknown field(s) ${unknown.join(', ')}; allowed: ${RESULT_FIELDS.join(', ')}.`,
      );
    if (!Number.isSafeInteger(item.id))
      throw invalidPayload(`Result [${i}].id must be the integer id of a command; got ${describeValue(item.id)}.`);
    if (!Number.isSafeInteger(item.statusCode))
      throw invalidPayload(
        `Result [${i}].statusCode must be an integer (HTTP-style, like 200); got ${describeValue(item.statusCode)}.`,
      );
    if (item.reasonPhrase !== undefined && typeof item.reasonPhrase !== 'string')
      throw invalidPayload(`Result [${i}].reasonPhrase must be a string.`);
    if (seen.has(item.id as number)) throw invalidPayload(`Command ${item.id} is reported twice in one result.`);
    seen.add(item.id as number);
    return item as unknown as DeviceResult;
  });
}

/** Commands (spec 4): poll or observe `command/<type>`, report on `result/<type>`. */
export const cex: Kp1Extension = {
  name: 'cex',
  resources: [
    {
      path: 'command/{commandType}',
      handle({ ctx, endpoint, params, payload }) {
        checkCommandType(params.commandType);
        const { observe } = requiredObject(payload, ['observe'], 'command');
        if (observe !== undefined && typeof observe !== 'boolean')
          throw invalidPayload(`observe must be true or false; got ${describeValue(observe)}.`);
        return { payload: outstandingCommands(ctx, endpoint, params.commandType), observe };
      },
    },
    {
      path: 'result/{commandType}',
      async handle({ ctx, endpoint, params, payload }) {
        checkCommandType(params.commandType);
        await reportResults(ctx, endpoint, params.commandType, resultsOf(payload));
        return {};
      },
    },
  ],
};
