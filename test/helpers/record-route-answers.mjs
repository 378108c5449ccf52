// Records what a build answers on every route case: `node test/helpers/record-route-answers.mjs <dist dir> <out.json>`.
// test/server/route-matcher.test.ts compares today's answers with a recording made with express's router (the build
// of the commit before the compiled matcher). Two emulators answer each case: where their bodies differ (ids and
// certificates made at start), the case is marked `varies` and only its status and headers are compared.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { answerOf } from './route-answers.mjs';
import { routeCases } from './route-cases.mjs';

const [dist, out] = process.argv.slice(2);
const { startEmulator, services } = await import(pathToFileURL(resolve(dist, 'index.js')).href);

async function record() {
  const emulator = await startEmulator({ port: 0, mqttPort: 0, inMemory: true, auth: 'off', log: () => undefined });
  try {
    const answers = [];
    for (const c of routeCases(services)) answers.push({ ...c, ...(await answerOf(emulator.url, c)) });
    return answers;
  } finally {
    await emulator.stop();
  }
}

const [first, second] = [await record(), await record()];
const answers = first.map((answer, i) =>
  answer.answer === second[i].answer ? answer : { ...answer, answer: null, contentLength: null, varies: true },
);
writeFileSync(out, `${JSON.stringify(answers, null, 1)}\n`);
process.stdout.write(`${answers.length} cases recorded in ${out}\n`);
