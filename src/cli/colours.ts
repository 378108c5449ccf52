import chalk from 'chalk';
import { coloursWanted } from './terminal.js';

// Colours only where a person reads them. Every CLI module takes its chalk from here, so that the commands that
// print no colour (`token`) do not load chalk at all.
if (!coloursWanted(process.stdout)) chalk.level = 0;

export default chalk;
