// A path (or path glob) that wraps at its slashes (`/usr/bin/` | `git`), never in the middle of a name
// or after a hyphen in it (issue 16: `/usr/bin/g|it` read as two programs). A name too long for any
// line (over NAME_KEPT_WHOLE characters) may still wrap inside, rather than overflow.
import { Fragment } from "react";

const NAME_KEPT_WHOLE = 40;

export function PathText(props: { text: string; className?: string }) {
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
