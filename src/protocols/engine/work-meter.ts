/** The engine counts its work in the meter the readers under it count theirs in (see scan/). */
export { workMeter } from '../../scan/work-meter.ts';
