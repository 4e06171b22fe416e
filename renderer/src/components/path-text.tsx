// A path (or path glob) that wraps at its slashes (`/usr/bin/` | `git`), never in the middle of a name
// or after a hyphen in it (issue 16: `/usr/bin/g|it` read as two programs). A name too long for any
// line (over NAME_KEPT_WHOLE characters) may still wrap inside, rather than overflow.
// With `cut="middle"` the path stays on one line and, when it does not fit, loses its middle: the start
// and the last segments stay visible (`/Users/alice/…/skills/browser`). The whole path is in the
// tooltip and in the text a screen reader reads, and focusing it (Tab) shows it whole, wrapped.
import { Fragment } from "react";

const NAME_KEPT_WHOLE = 40;

/** How many trailing segments a middle cut keeps (`skills/browser`). */
const TAIL_SEGMENTS = 2;

function MiddleCut(props: { text: string; className?: string }) {
  const parts = props.text.split(/(?=\/)/);
  const split = Math.max(0, parts.length - TAIL_SEGMENTS);
  const head = parts.slice(0, split).join("");
  const tail = parts.slice(split).join("");
  return (
    <span
      className={props.className ? `path path-cut ${props.className}` : "path path-cut"}
      title={props.text}
      tabIndex={0}
    >
      {head ? <span className="path-cut-head">{head}</span> : null}
      <span className="path-cut-tail">{tail}</span>
    </span>
  );
}

export function PathText(props: { text: string; className?: string; cut?: "middle" }) {
  if (props.cut === "middle") return <MiddleCut text={props.text} className={props.className} />;
  const parts = props.text.split(/(?<=\/)/);
  return (
    <span className={props.className ? `path ${props.className}` : "path"}>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {part.length <= NAME_KEPT_WHOLE ? <span className="path-name">{part}</span> : part}
          {index < parts.length - 1 ? <wbr /> : null}
        </Fragment>
      ))}
    </span>
  );
}
