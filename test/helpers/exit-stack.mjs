// `node --import ./exit-stack.mjs ...` prints to stderr the stack of the code that calls process.exit(): a stack trace
// taken inside the program, as Node formats it for that program (with its source maps if the program turned them on).
const exit = process.exit;
process.exit = function exitWithStack(code) {
  process.stderr.write(`process.exit(${code}) called ${new Error('here').stack.split('\n').slice(1).join('\n')}\n`);
  return exit.call(process, code);
};
