// The arithmetic of a replay's analysis (docs/web.md, "Analyses").  No DOM (tests/js/analysis.test.js).

export function pct(p) { return Math.round(100 * p); }

// The step after each action: frame index + 1 is the position the action led to.
export function stepOfDecision(d) { return d.index + 1; }

// The turn the replay shows at step i (0: the setup), as the analysis counts turns.
// (A step past the analysed decisions, e.g. of a game that ended by resignation before any of
// them, shows the last turn analysed.)
export function turnAtStep(decisions, i) {
  const d = decisions[Math.min(i, decisions.length) - 1];
  return d ? d.turn : 0;
}

// The last step of each turn (the table's rows jump there).
export function lastStepOfTurns(decisions) {
  const lastStep = new Map();
  for (const d of decisions) lastStep.set(d.turn, stepOfDecision(d));
  return lastStep;
}

// The replay's step asked for by the address (#s=5), within 0..n; the last step without one.
export function stepFromHash(hash, n) {
  return Math.max(0, Math.min(n, Number(new URLSearchParams(hash.replace(/^#/, "")).get("s") || n)));
}
