// A server's conditions, as Kubernetes keeps them: each a type with a status (true, false or
// unknown), a reason (a CamelCase word), a message and the time its status last changed. Only the
// engine's reports write them (reconciliation, a job's report, the emulator's machine faults);
// actions never do. Degraded is derived: true while any other condition is not true.

export const conditionTypes = ['EngineReachable', 'MachinePresent', 'DiskConsistent', 'Degraded'] as const;
export type ConditionType = (typeof conditionTypes)[number];
export type ConditionStatus = 'true' | 'false' | 'unknown';

export interface Condition {
  type: ConditionType;
  status: ConditionStatus;
  reason: string;
  message: string;
  /** Clock ms when the status last changed. */
  since: number;
}

/** What a report says of one condition (Degraded is never reported: it follows from the others). */
export interface ConditionReport {
  type: Exclude<ConditionType, 'Degraded'>;
  status: ConditionStatus;
  reason: string;
  message: string;
}

/** The reason MachinePresent is false for a machine the engine made and no longer has. */
export const machineLostReason = 'InstanceMissing';
/** The reason MachinePresent is false for a machine on a host the engine reports offline (lost with it). */
export const hostLostReason = 'HostLost';
/** The reasons that make a machine lost: only an explicit action (restore, rebuild, reinstall, recover) brings it back. */
export const lostReasons: readonly string[] = [machineLostReason, hostLostReason];
/** The reason MachinePresent is false for a disk the engine gave up making (a create, rebuild...). */
export const createFailedReason = 'CreateFailed';
/** The reason EngineReachable is false while the engine does not answer. */
export const engineUnreachableReason = 'EngineUnreachable';

/**
 * The text that the stored conditions (applyConditions' JSON) hold exactly when `type` has
 * `status`: for the queries that count or filter servers by it without parsing the JSON.
 */
export function conditionStored(type: ConditionType, status: ConditionStatus): string {
  return JSON.stringify({ type, status }).slice(1, -1);
}

export function parseConditions(json: string | null): Condition[] {
  return json ? (JSON.parse(json) as Condition[]) : [];
}

export function conditionOf(conditions: readonly Condition[], type: ConditionType): Condition | undefined {
  return conditions.find((c) => c.type === type);
}

/** True when the machine the engine made is gone, alone or with its host (MachinePresent false for either reason). */
export function isLost(conditions: readonly Condition[]): boolean {
  const present = conditionOf(conditions, 'MachinePresent');
  return present?.status === 'false' && lostReasons.includes(present.reason);
}

/**
 * True when the server has no machine: lost, or its disk's making given up. Its machine is not
 * billed, and only an action that makes a new disk (or a removal) helps (docs/decisions.md).
 */
export function isWithoutMachine(conditions: readonly Condition[]): boolean {
  const present = conditionOf(conditions, 'MachinePresent');
  return present?.status === 'false' && (lostReasons.includes(present.reason) || present.reason === createFailedReason);
}

/**
 * The conditions after `reports` (the others kept as they were), with Degraded derived; a status
 * unchanged keeps its time. `changed` is false when nothing but the order would differ, so a round
 * with nothing new writes nothing.
 */
export function applyConditions(
  json: string | null,
  reports: readonly ConditionReport[],
  now: number,
): { json: string; changed: boolean; conditions: Condition[] } {
  const before = parseConditions(json);
  // What a full read reports of nearly every server: the text as stored, not made again to compare.
  if (json !== null && reportedAsStored(before, reports)) return { json, changed: false, conditions: before };
  const next = new Map<ConditionType, Condition>(before.map((c) => [c.type, c]));
  const put = ({ type, status, reason, message }: Omit<Condition, 'since'>) => {
    const old = next.get(type);
    // The keys in this order, always: conditionStored matches the stored text.
    next.set(type, { type, status, reason, message, since: old && old.status === status ? old.since : now });
  };
  for (const report of reports) put(report);
  put(degradedBy(next.values()));
  const conditions = conditionTypes.flatMap((type) => {
    const c = next.get(type);
    return c ? [c] : [];
  });
  const text = JSON.stringify(conditions);
  return { json: text, changed: text !== (json ?? ''), conditions };
}

/** Degraded as the other conditions derive it: true, with the first failing one's reason, while any is not true. */
function degradedBy(conditions: Iterable<Condition>): Omit<Condition, 'since'> {
  const failing = [...conditions].filter((c) => c.type !== 'Degraded' && c.status !== 'true');
  return failing.length
    ? {
        type: 'Degraded',
        status: 'true',
        reason: failing[0]!.reason,
        message: failing.map((c) => `${c.type}: ${c.message}`).join('; '),
      }
    : {
        type: 'Degraded',
        status: 'false',
        reason: 'AllConditionsTrue',
        message: 'the machine is as the engine made it',
      };
}

/**
 * True when every report says what is stored and Degraded is stored as they derive it: then
 * applyConditions' text would be the stored text (it wrote it, each status keeping its time).
 */
function reportedAsStored(before: readonly Condition[], reports: readonly ConditionReport[]): boolean {
  const same = (held: Condition | undefined, said: Omit<Condition, 'since'>) =>
    held?.status === said.status && held.reason === said.reason && held.message === said.message;
  return (
    reports.every((report) => same(conditionOf(before, report.type), report)) &&
    same(conditionOf(before, 'Degraded'), degradedBy(before))
  );
}
