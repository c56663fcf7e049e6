/** The rail policies by name (TSMPI_RAIL_POLICY). */
import { AdaptivePolicy } from './adaptive.js';
import { QLearningPolicy } from './q-learning.js';
import { RoundRobinPolicy } from './round-robin.js';
import type { RailPolicy, RailPolicyName, RailPolicyOptions } from './types.js';
import { WeightedPolicy } from './weighted.js';

export function createRailPolicy(name: RailPolicyName, options: RailPolicyOptions): RailPolicy {
  switch (name) {
    case 'round-robin':
      return new RoundRobinPolicy(options);
    case 'q-learning':
      return new QLearningPolicy(options);
    case 'weighted':
      return new WeightedPolicy(options);
    case 'adaptive':
      return new AdaptivePolicy(options);
  }
}

export { AdaptivePolicy, QLearningPolicy, RoundRobinPolicy, WeightedPolicy };
export * from './types.js';
