import { constants, fdatasync, openSync, write } from 'node:fs';

const DSYNC = constants.O_DSYNC ?? 0;

/**
 * A file that the bench's reference servers append records to as the emulator's log does: one asynchronous write on a
 * file opened with O_DSYNC, done once the line is on disk (where the system has no O_DSYNC, an fdatasync follows).
 * Returns `append(record, done)`: `done(error?)` once the record's line is durable.
 */
export function durableAppender(path) {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | DSYNC);
  return (record, done) => {
    const line = Buffer.from(`${JSON.stringify(record)}\n`);
    write(fd, line, 0, line.length, null, (error) => (error || DSYNC ? done(error) : fdatasync(fd, done)));
  };
}
