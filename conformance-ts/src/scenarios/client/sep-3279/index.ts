/**
 * SEP-3279 (tool result variants) client scenarios. Register these in src/scenarios/index.ts
 * (`sep3279ClientScenarios`, see README.md).
 */
export { Sep3279ClientScenario, sep3279ClientScenarios } from './scenarios';
