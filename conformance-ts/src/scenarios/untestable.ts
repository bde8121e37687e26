// Stand-in for the suite's src/scenarios/untestable.ts (issue #248 there): a check whose
// prerequisite is missing fails, naming it, with `details.untestable: true`.
import type { ConformanceCheck, SpecReference } from '../types';

export function notTestable(reason: string): string {
  return `Not testable: ${reason}`;
}

export function untestableCheck(
  id: string,
  name: string,
  description: string,
  reason: string,
  specReferences: SpecReference[],
  severity: 'FAILURE' | 'WARNING' = 'FAILURE'
): ConformanceCheck {
  return {
    id,
    name,
    description,
    status: severity,
    timestamp: new Date().toISOString(),
    errorMessage: notTestable(reason),
    specReferences,
    details: { untestable: true, reason }
  };
}
