// A worker thread's entry: makes one certificate authority and posts it (see `authorityInWorker` in authority.ts).
import { parentPort } from 'node:worker_threads';
import { newAuthority } from './new-authority.js';

parentPort?.postMessage(newAuthority());
