/** Process topologies: Cartesian grids, graphs, distributed graphs and their neighbour collectives. */
export { CartCommunicator, type CartShift } from './cart-communicator.js';
export { DistGraphCommunicator, type DistGraphEdgeOptions, type DistGraphOptions } from './dist-graph-communicator.js';
export { GraphCommunicator } from './graph-communicator.js';
export { computeDims } from './dims.js';
