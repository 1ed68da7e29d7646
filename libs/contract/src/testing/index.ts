export { ManualClock } from './manual-clock';
export { ShiftedClock } from './shifted-clock';
