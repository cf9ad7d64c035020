// The types of run-id.js, which jest loads as plain JavaScript (globalSetup and globalTeardown).
declare function setup(): Promise<void>;
declare namespace setup {
  /** Whether a process is alive. */
  function alive(pid: number): boolean;
  function teardown(): Promise<void>;
}
export = setup;
