export default async function globalTeardown() {
  await globalThis.platformEmulator.stop();
}
