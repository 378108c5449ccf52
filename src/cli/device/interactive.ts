import inquirer from 'inquirer';
import type { ReceivedCommand } from '../../simulator/events.js';
import type { Answer } from '../../simulator/rules.js';

/** Prompts go to stderr, so that `--json` events on stdout stay machine-readable. */
const prompt = inquirer.createPromptModule({ output: process.stderr });

const show = (value: unknown) => (value === undefined ? '(none)' : JSON.stringify(value));

function parsePayload(text: string): unknown {
  return text.trim() === '' ? undefined : JSON.parse(text);
}

async function askOne(command: ReceivedCommand, suggested: Answer): Promise<Answer> {
  const { choice } = await prompt<{ choice: 'suggested' | 'custom' | 'ignore' }>([
    {
      type: 'select',
      name: 'choice',
      message:
        `${command.token}: command ${command.commandType} #${command.commandId} with payload ` +
        `${show(command.payload)}. Answer?`,
      choices: [
        {
          name:
            `${suggested.statusCode}${suggested.reasonPhrase ? ` ${suggested.reasonPhrase}` : ''} with ` +
            `${show(suggested.payload)} (suggested)`,
          value: 'suggested',
        },
        { name: 'another status code and payload', value: 'custom' },
        { name: 'do not answer (the caller gets 202, the command stays pending)', value: 'ignore' },
      ],
    },
  ]);
  if (choice === 'suggested') return suggested;
  if (choice === 'ignore') return { ...suggested, ignore: true };
  const custom = await prompt<{ statusCode: string; reasonPhrase: string; payload: string }>([
    {
      type: 'input',
      name: 'statusCode',
      message: 'Status code',
      default: String(suggested.statusCode),
      validate: (value: string) => (/^[1-5]\d\d$/.test(value.trim()) ? true : 'a status code from 100 to 599'),
    },
    {
      type: 'input',
      name: 'reasonPhrase',
      message: 'Reason phrase (empty for none)',
      default: suggested.reasonPhrase ?? '',
    },
    {
      type: 'input',
      name: 'payload',
      message: 'Response payload as JSON (empty for none)',
      default: suggested.payload === undefined ? '' : JSON.stringify(suggested.payload),
      validate: (value: string) => {
        try {
          parsePayload(value);
          return true;
        } catch (err) {
          return `not JSON: ${(err as Error).message}`;
        }
      },
    },
  ]);
  return {
    statusCode: Number(custom.statusCode.trim()),
    ...(custom.reasonPhrase.trim() ? { reasonPhrase: custom.reasonPhrase.trim() } : {}),
    ...(parsePayload(custom.payload) !== undefined ? { payload: parsePayload(custom.payload) } : {}),
    delayMs: 0,
    ignore: false,
  };
}

/**
 * One question at a time, even when several devices receive commands at once. A prompt closed with Ctrl-C
 * calls `onExit` (the simulation stops) and leaves that command and every queued one unanswered.
 */
export function interactiveDecider(
  onExit: () => void,
): (command: ReceivedCommand, suggested: Answer) => Promise<Answer> {
  let queue: Promise<unknown> = Promise.resolve();
  // After a Ctrl-C no prompt opens again: the commands still queued are left unanswered, and the process can end.
  let closed = false;
  return (command, suggested) => {
    const asked = queue.then(() => {
      if (closed) return { ...suggested, ignore: true };
      return askOne(command, suggested).catch((err: Error) => {
        if (err.name !== 'ExitPromptError') throw err;
        closed = true;
        onExit();
        return { ...suggested, ignore: true };
      });
    });
    queue = asked.catch(() => undefined);
    return asked;
  };
}
