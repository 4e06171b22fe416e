// The one way a path (or path glob) is shown (issue 16, issue 32 Build 6): it wraps only after a
// separator (`/usr/bin/` | `git`, `C:\Users\` | `alice`), never in the middle of a name or after a hyphen
// in it (`/usr/bin/g|it` read as two programs), and nothing of it is hidden behind an ellipsis. A name
// too long for any line (over NAME_KEPT_WHOLE characters, e.g. a digest) may still wrap inside, rather
// than overflow silently (ui.md).
import { Fragment } from "react";

const NAME_KEPT_WHOLE = 40;

/** `/usr/bin/git` → ["/", "usr/", "bin/", "git"]: each part ends at a separator (kept with it). */
export function pathParts(text: string): string[] {
  return text.split(/(?<=[/\\])/).filter((part) => part !== "");
}

export function PathText(props: { text: string; className?: string }) {
  const parts = pathParts(props.text);
  return (
    <span className={props.className ? `path ${props.className}` : "path"} data-path={props.text}>
      {parts.map((part, index) => (
        <Fragment key={index}>
          <span className={part.length <= NAME_KEPT_WHOLE ? "path-name" : "path-name path-name-long"}>
            {part}
          </span>
          {index < parts.length - 1 ? <wbr /> : null}
        </Fragment>
      ))}
    </span>
  );
}
