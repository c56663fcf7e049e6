/**
 * How a launcher starts a process on another host: a launch agent (ssh by default, or any
 * command that takes a host and a shell command, as `ssh` does: `--launch-agent CMD`) runs one
 * shell command there. The command carries the job's variables; the job secret never goes in it
 * (it travels on the agent's stdin).
 */
import { parse, quote } from 'shell-quote';
import { ErrorCode, TsmpiError } from '../errors.js';

/**
 * The system's ssh client: never asks for a password (BatchMode), gives up connecting after 10 s,
 * and ends when the host stops answering for 15 s (so a lost host ends its part of the job).
 */
export const DEFAULT_LAUNCH_AGENT: readonly string[] = ['ssh', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10', '-o', 'ServerAliveInterval=5', '-o', 'ServerAliveCountMax=3', '-T', '-x'];

/** Splits `--launch-agent CMD` as a shell would (quotes kept together; no operators, no variables). */
export function parseLaunchAgent(text: string): string[] {
  const words = parse(text, (name) => `$${name}`);
  const bad = words.find((w) => typeof w !== 'string');
  if (words.length === 0 || bad !== undefined) {
    throw new TsmpiError(ErrorCode.Arg, `--launch-agent ${JSON.stringify(text)} is not a command`, {
      operation: 'tsmpi run',
      hint: 'give a command that takes a host and a shell command, e.g. --launch-agent "ssh -p 2222"; no pipes or redirections',
    });
  }
  return words as string[];
}

/** The shell command that starts `argv` in `cwd` on the other host with `env` set. */
export function remoteCommand(cwd: string, env: Readonly<Record<string, string>>, argv: readonly string[]): string {
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  return `cd ${quote([cwd])} && exec env ${quote([...assignments, ...argv])}`;
}
