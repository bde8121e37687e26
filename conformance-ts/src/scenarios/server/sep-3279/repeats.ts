/**
 * SEP-3279 — a named call that succeeded and later fails with the same arguments: the failure
 * says so.
 *
 * A call named with `server --tool-calls` is made in every case it fits, always with the
 * arguments given, on the same server, and the `server` command runs its scenarios one after the
 * other in one process. A call that changes what the next one finds (it closes a ticket, renews a
 * loan) succeeds once and then fails, and every later case then failed with the server's words
 * alone ("already closed"), which read as if the server broke SEP-3279. The failure stands: the
 * case needed that call, and a verdict that forgave a tool for failing after a first success could
 * be fooled by one. What changes is that the failure says what happened and what to name instead.
 *
 * A later call can also fail for what it asks (other outputs, another version: the server's bug),
 * so when a needed call fails after a success, the request that succeeded is sent again (once per
 * tool and arguments, until it fails): only when it now fails too is the failure said to be a
 * repeat's. A re-send that gets no answer at all proves nothing and says nothing.
 */

/** A tools/call as the case sent it: enough to send it again. */
export interface SentCall {
  version: string;
  ui: boolean;
  params: Record<string, unknown>;
}

/** How a re-sent call ended: how it failed, `undefined` when it succeeded, `null` without an answer. */
export type Resend = (call: SentCall) => Promise<string | undefined | null>;

/** What a needed call's failure adds when the same call succeeded earlier and its first request fails now too. */
export interface Repeat {
  tool: string;
  arguments: Record<string, unknown>;
  /** The number of the first call (with these arguments) that succeeded, and of this one, counted in the order made. */
  firstSucceeded: number;
  call: number;
  /** How the first request failed when sent again. */
  firstAgain: string;
}

interface Calls {
  count: number;
  firstSucceeded?: number;
  first?: SentCall;
  /** How the first request failed when sent again: the tool's state changed. */
  again?: string;
}

/** The named calls' outcomes on one server, in the order the cases made them. */
export class RepeatedCalls {
  private readonly calls = new Map<string, Calls>();

  /**
   * Count one named call: `failed` is how it failed (undefined: it succeeded). When it is a
   * `needed` call that failed after one with the same arguments succeeded, and that first request,
   * sent again, fails now too: the Repeat; else undefined.
   */
  async record(
    call: SentCall,
    failed: string | undefined,
    needed: boolean,
    resend: Resend
  ): Promise<Repeat | undefined> {
    const tool = String(call.params.name);
    const args = (call.params.arguments ?? {}) as Record<string, unknown>;
    const key = `${tool}\u0000${JSON.stringify(args)}`;
    const calls = this.calls.get(key) ?? { count: 0 };
    this.calls.set(key, calls);
    calls.count += 1;
    if (failed === undefined) {
      if (calls.first === undefined) {
        calls.firstSucceeded = calls.count;
        calls.first = call;
      }
      return undefined;
    }
    if (!needed || calls.first === undefined) return undefined;
    const number = calls.count;
    if (calls.again === undefined) {
      calls.count += 1;
      const again = await resend(calls.first);
      // What succeeded still does (or the re-send got no answer): this call failed for what it asks.
      if (typeof again !== 'string') return undefined;
      calls.again = again;
    }
    return {
      tool,
      arguments: args,
      firstSucceeded: calls.firstSucceeded!,
      call: number,
      firstAgain: calls.again
    };
  }
}

const onServer = new Map<string, RepeatedCalls>();

/** The named calls made on `serverUrl` by every scenario run in this process. */
export function repeatedCallsOn(serverUrl: string): RepeatedCalls {
  let calls = onServer.get(serverUrl);
  if (calls === undefined) {
    calls = new RepeatedCalls();
    onServer.set(serverUrl, calls);
  }
  return calls;
}

/** What a needed call's failure says when it is a repeat's (the words of the Python suite's check). */
export function repeatNote(repeat: Repeat): string {
  return (
    `${repeat.tool} succeeded on its ${ordinal(repeat.firstSucceeded)} call in this run, with the same arguments, ` +
    `and failed on this one, its ${ordinal(repeat.call)}; that first request, sent again, fails now too ` +
    `(${repeat.firstAgain}): the tool's first call changed what a repeat finds, and the suite makes a named call ` +
    '(--tool-calls) in every case it fits, always with the arguments given, so a call that changes what the next ' +
    'one finds (closing a ticket, renewing a loan) fails each case after the first. Name a call that succeeds every ' +
    'time (a read-only tool, or arguments a repeat does not change), or check how the tool fails with errorCalls ' +
    'and arguments it fails with every time'
  );
}

/**
 * What a failed comparison of two calls of one tool with the same arguments says when the earlier call, sent again at
 * its version, answered otherwise (`again`, as text): the tool's result changes from call to call, so a comparison
 * across versions cannot judge the rule. The verdict stays a failure: the rule was not seen kept (the words of the
 * Python suite's check).
 */
export function changedNote(
  tool: string,
  version: string,
  again: string
): string {
  return (
    `${tool}'s result changed between two identical calls at the same version (the ${version} call, sent again, ` +
    `answered ${again}): it creates or counts something, or says the time, so comparing its calls across versions ` +
    'cannot judge this rule; name a call whose result is the same each time (a read, or arguments that find the same thing)'
  );
}

/** 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, …, 21st. */
export function ordinal(n: number): string {
  const teen = n % 100 >= 10 && n % 100 <= 20;
  const suffix = teen
    ? 'th'
    : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ??
      'th');
  return `${n}${suffix}`;
}
