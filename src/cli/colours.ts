import type { ChalkInstance } from 'chalk';
import { coloursWanted } from './terminal.js';

/**
 * Text without colour, for the style chains the CLI uses (`chalk.dim(...)`, `chalk.bold.green(...)`): any style is
 * itself again, and a call gives back its text as chalk at level 0 does.
 */
const plain: ChalkInstance = new Proxy((...text: unknown[]) => text.join(' '), {
  get: () => plain,
}) as unknown as ChalkInstance;

/**
 * chalk where a person reads the output, else plain text. chalk (and the terminal probing it does) is loaded only
 * when colours are wanted: in scripts and pipes it is a sizeable part of a short command's startup.
 */
const chalk: ChalkInstance = coloursWanted(process.stdout) ? (await import('chalk')).default : plain;

export default chalk;
