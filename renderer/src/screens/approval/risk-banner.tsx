// Risk first (issue 16): what a wrong "allow" could do, at the top of the dialog, red when it is
// dangerous. The risks come from the gate (core/policy/risk.ts); nothing is judged here.
import type { Risk } from "../../../../src/ipc/contract.js";
import { timeOfDay } from "../../words.js";

export function hasDanger(risks: readonly Risk[]): boolean {
  return risks.some((r) => r.level === "danger");
}

export function RiskBanner(props: { risks: readonly Risk[] }) {
  if (props.risks.length === 0) return null;
  const danger = hasDanger(props.risks);
  return (
    <section
      className={danger ? "risk-banner risk-danger" : "risk-banner risk-caution"}
      aria-labelledby="risk-title"
    >
      <h2 id="risk-title">{danger ? "Careful: this can do real harm" : "Worth a second look"}</h2>
      <ul>
        {props.risks.map((risk, index) => (
          <li key={index}>
            {risk.detail}
            {/* in the person's own time zone, not main's or UTC */}
            {risk.until !== undefined ? ` (until ${timeOfDay(risk.until)})` : ""}
          </li>
        ))}
      </ul>
    </section>
  );
}
