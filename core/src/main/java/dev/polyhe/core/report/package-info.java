/**
 * What an encrypted run reports: the latency breakdown by operator kind, primitive and operator
 * ({@link LatencyBreakdown}) and the bootstrap plan explained ({@link PlanExplanation}).
 */
package dev.polyhe.core.report;
