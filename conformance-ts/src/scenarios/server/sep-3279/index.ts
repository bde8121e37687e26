/**
 * SEP-3279 (tool result variants) server scenarios. Register these in src/scenarios/index.ts
 * (`sep3279ServerScenarios`, see README.md).
 */
import type { ClientScenario } from '../../../types';
import { Sep3279BackwardCompatibilityScenario } from './backcompat';
import { Sep3279ToolDeclarationsScenario } from './declarations';
import { Sep3279OutputSelectionScenario } from './selection';

export {
  Sep3279BackwardCompatibilityScenario,
  Sep3279ToolDeclarationsScenario,
  Sep3279OutputSelectionScenario
};

export const sep3279ServerScenarios: ClientScenario[] = [
  new Sep3279ToolDeclarationsScenario(),
  new Sep3279OutputSelectionScenario(),
  new Sep3279BackwardCompatibilityScenario()
];
