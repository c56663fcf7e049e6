/**
 * Speed predictors of the random-diffusion balancer: what a rank expects its speed (work units per
 * second) to be in the next balancing interval, from the speeds it measured in the past ones.
 *
 * - `last`: the last interval predicts the next (Charm++'s principle of persistence). The baseline
 *   the learned model must beat (docs/techniques.md §3).
 * - `learned`: the learning step of patent CN105117292B (steps 1a-1c; docs/techniques.md §3),
 *   reduced to one rank: the rank's speed state is a Markov chain (the dynamic Bayesian network's
 *   slice-to-slice dependency for one variable), the states come from the measured speeds binned
 *   into `states` equal levels of the fastest speed seen (the "shape of the state-transition graph
 *   from the load"), and the transition matrix is the maximum-likelihood estimate, the transition
 *   counts, smoothed by adding `prior` to every transition between states that have been visited.
 *   The prediction is the expected speed of the next state given the current one, each state
 *   standing for the mean speed measured in it.
 *
 * Speeds that are not finite and > 0 (an interval with no work measured) are ignored.
 */

export type SpeedModelName = 'last' | 'learned';

/** Predicts a rank's speed (work units per second) in the next balancing interval from the speeds it measured. */
export interface SpeedModel {
  /** Records the speed measured over the interval that just ended. */
  observe(speed: number): void;
  /** The speed expected over the next interval, or undefined before any observation. */
  predict(): number | undefined;
  readonly name: SpeedModelName;
}

function usable(speed: number): boolean {
  return Number.isFinite(speed) && speed > 0;
}

/** "The last interval predicts the next" (Charm++'s principle of persistence): the baseline. */
export class LastIntervalModel implements SpeedModel {
  readonly name = 'last';
  private last: number | undefined;

  observe(speed: number): void {
    if (usable(speed)) this.last = speed;
  }

  predict(): number | undefined {
    return this.last;
  }
}

export interface TransitionModelOptions {
  /** Speed levels: state s holds the speeds in [s/states, (s+1)/states) of the fastest seen (the fastest in the top one). @default 5 */
  states?: number;
  /** Added to the count of every transition between visited states (add-prior smoothing). @default 0.5 */
  prior?: number;
  /** Observations the counts are learned from (the most recent), so that the model follows a change of pattern. @default 64 */
  window?: number;
}

/**
 * The seed's learned model: speeds are binned into `states` levels relative to the fastest speed
 * seen; the state-transition matrix is the maximum-likelihood estimate (transition counts, with
 * add-`prior` smoothing) and the prediction is the expected speed of the next state given the
 * current one (mean observed speed per state). Falls back to the last speed while the current
 * state has no observed transitions.
 *
 * The smoothing spreads `prior` only over the states visited within the window: a state never
 * visited has no mean speed to stand for. So a constant speed (one state) predicts exactly that
 * speed, as the baseline does.
 *
 * @example
 * const model = new TransitionModel();
 * for (const speed of [1, 1 / 3, 1, 1 / 3, 1]) model.observe(speed);
 * model.predict(); // 4/9: after a 1 came 1/3 twice, 1 never: (2.5 * 1/3 + 0.5 * 1) / 3
 */
export class TransitionModel implements SpeedModel {
  readonly name = 'learned';
  readonly states: number;
  readonly prior: number;
  readonly window: number;
  /** The last `window` usable speeds, oldest first. */
  private readonly history: number[] = [];
  private fastest = 0;

  constructor(options: TransitionModelOptions = {}) {
    const states = options.states ?? 5;
    const prior = options.prior ?? 0.5;
    const window = options.window ?? 64;
    if (!Number.isInteger(states) || states < 1) throw new RangeError(`states must be an integer >= 1, got ${states}`);
    if (!Number.isFinite(prior) || prior < 0) throw new RangeError(`prior must be a finite number >= 0, got ${prior}`);
    if (!Number.isInteger(window) || window < 2) throw new RangeError(`window must be an integer >= 2, got ${window}`);
    this.states = states;
    this.prior = prior;
    this.window = window;
  }

  observe(speed: number): void {
    if (!usable(speed)) return;
    this.history.push(speed);
    if (this.history.length > this.window) this.history.shift();
    if (speed > this.fastest) this.fastest = speed;
  }

  /** The state (speed level) of a speed, against the fastest speed seen so far. */
  stateOf(speed: number): number {
    if (this.fastest <= 0) return 0;
    return Math.min(this.states - 1, Math.floor((this.states * speed) / this.fastest));
  }

  predict(): number | undefined {
    const history = this.history;
    const n = history.length;
    if (n === 0) return undefined;
    const last = history[n - 1]!;
    const k = this.states;
    // States are recomputed against today's fastest speed, so that the bins of old observations
    // move with it.
    const state = history.map((s) => this.stateOf(s));
    const current = state[n - 1]!;
    const speedSum = new Float64Array(k);
    const visits = new Float64Array(k);
    for (let i = 0; i < n; i++) {
      speedSum[state[i]!]! += history[i]!;
      visits[state[i]!]!++;
    }
    const next = new Float64Array(k); // transitions out of the current state, by destination
    let out = 0;
    for (let i = 0; i + 1 < n; i++) {
      if (state[i] === current) {
        next[state[i + 1]!]!++;
        out++;
      }
    }
    if (out === 0) return last;
    let visited = 0;
    for (let s = 0; s < k; s++) if (visits[s]! > 0) visited++;
    const denominator = out + this.prior * visited;
    let expected = 0;
    for (let s = 0; s < k; s++) {
      if (visits[s]! === 0) continue;
      expected += ((next[s]! + this.prior) / denominator) * (speedSum[s]! / visits[s]!);
    }
    return expected;
  }
}

/** A speed model by name, with what it does (for `tsmpi info` and the balancer's option). */
export const SPEED_MODELS: Readonly<Record<SpeedModelName, { readonly description: string; readonly create: () => SpeedModel }>> = {
  last: { description: 'the last interval predicts the next (principle of persistence)', create: () => new LastIntervalModel() },
  learned: { description: 'Markov chain over binned speeds, maximum-likelihood transition matrix (patent CN105117292B)', create: () => new TransitionModel() },
};

export function createSpeedModel(name: SpeedModelName): SpeedModel {
  const entry = SPEED_MODELS[name];
  if (entry === undefined) throw new RangeError(`speed model must be one of ${Object.keys(SPEED_MODELS).join(', ')}, got ${String(name)}`);
  return entry.create();
}
