export { ManualJobClock } from './manual-job-clock';
