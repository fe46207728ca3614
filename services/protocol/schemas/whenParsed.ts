/** Refinement option: run a cross-field check only when everything before it parsed, so it sees well-typed values. */
export const whenParsed = { when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0 };
