// Tabs (the WAI-ARIA tabs pattern): one tab stop for the whole list, Left/Right move between tabs and
// Home/End jump to the first and last; the chosen tab labels the one `TabPanel` (which may sit further
// down, below a search box shared by all tabs).
import type { KeyboardEvent, ReactNode } from "react";

export interface TabSpec<Id extends string> {
  id: Id;
  label: string;
  /** Shown after the label (how many items the tab holds). */
  count?: number;
}

const STEP: Record<string, (index: number, length: number) => number> = {
  ArrowRight: (i, n) => (i + 1) % n,
  ArrowLeft: (i, n) => (i + n - 1) % n,
  Home: () => 0,
  End: (_, n) => n - 1,
};

const tabId = (group: string, id: string) => `${group}-tab-${id}`;
const panelId = (group: string) => `${group}-panel`;

export function Tabs<Id extends string>(props: {
  /** Names the group: prefix of the tabs' and the panel's ids. */
  id: string;
  label: string;
  tabs: ReadonlyArray<TabSpec<Id>>;
  selected: Id;
  onSelect: (id: Id) => void;
}) {
  const onKey = (e: KeyboardEvent<HTMLButtonElement>) => {
    const step = STEP[e.key];
    if (!step) return;
    e.preventDefault();
    const index = props.tabs.findIndex((t) => t.id === props.selected);
    const next = props.tabs[step(index, props.tabs.length)];
    if (!next) return;
    props.onSelect(next.id);
    document.getElementById(tabId(props.id, next.id))?.focus();
  };
  return (
    <div className="tabs" role="tablist" aria-label={props.label}>
      {props.tabs.map((t) => {
        const selected = props.selected === t.id;
        return (
          <button
            key={t.id}
            id={tabId(props.id, t.id)}
            type="button"
            role="tab"
            className={selected ? "tab active" : "tab"}
            aria-selected={selected}
            aria-controls={panelId(props.id)}
            tabIndex={selected ? 0 : -1}
            onClick={() => props.onSelect(t.id)}
            onKeyDown={onKey}
          >
            {t.label}
            {t.count !== undefined ? (
              <>
                {" "}
                <span className="count">{t.count}</span>
              </>
            ) : null}
          </button>
        );
      })}
    </div>
  );
}

/** The content of the selected tab of the group `tabs`. */
export function TabPanel(props: { tabs: string; selected: string; children: ReactNode }) {
  return (
    <div id={panelId(props.tabs)} role="tabpanel" aria-labelledby={tabId(props.tabs, props.selected)}>
      {props.children}
    </div>
  );
}
