// Layout checks the screenshot harness runs on every screen and state (issue 32, Build 6), measured in
// the page as it is drawn: paths break only after a separator and are shown whole, and every row's
// action buttons are inside the window and inside the table's visible (scrollable) box.
import type { Page } from "playwright-core";

/**
 * Problems with the paths on the page: a path shown other than whole (its text is not its
 * `data-path`, or an ellipsis cuts it), or a name of it (between separators) broken across lines.
 */
export async function pathProblems(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const problems = [];
    for (const el of document.querySelectorAll(".path")) {
      const full = el.getAttribute("data-path");
      if (el.textContent !== full) problems.push("path shown other than whole: " + full);
      for (const name of el.querySelectorAll(".path-name:not(.path-name-long)")) {
        const lines = new Set([...name.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) problems.push('"' + name.textContent + '" of ' + full + " breaks inside a name");
      }
      for (let n = el; n && n !== document.body; n = n.parentElement) {
        const style = getComputedStyle(n);
        if (style.textOverflow === "ellipsis" && style.overflowX !== "visible") {
          problems.push("path cut by an ellipsis: " + full);
          break;
        }
      }
    }
    return problems;
  })()`);
}

/** The paths (`data-path`) the page shows through the one path component. */
export async function shownPaths(page: Page): Promise<string[]> {
  return page.evaluate(`[...document.querySelectorAll(".path")].map((el) => el.getAttribute("data-path"))`);
}

/**
 * Problems with the tables' action buttons: one outside the window or outside its table's visible
 * box (the region it scrolls in), and a page that scrolls sideways as a whole.
 */
export async function actionProblems(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const problems = [];
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width + 1) problems.push("the page scrolls sideways");
    for (const cell of document.querySelectorAll("td.actions")) {
      const region = cell.closest(".table-wrap");
      const box = region ? region.getBoundingClientRect() : { left: 0, right: width };
      const left = Math.max(0, box.left) - 1;
      const right = Math.min(width, box.right) + 1;
      for (const button of cell.querySelectorAll("button")) {
        const r = button.getBoundingClientRect();
        if (r.width === 0) continue;
        if (r.left < left || r.right > right)
          problems.push((button.getAttribute("aria-label") || button.textContent) + " is outside the visible box");
      }
    }
    return problems;
  })()`);
}

/** Drop-downs too narrow for the choice they show (its text measured in the select's own font). */
export async function selectProblems(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const problems = [];
    const context = document.createElement("canvas").getContext("2d");
    for (const select of document.querySelectorAll("select")) {
      const option = select.selectedOptions[0];
      if (!option || select.getBoundingClientRect().width === 0) continue;
      const style = getComputedStyle(select);
      context.font = style.font;
      const text = context.measureText(option.text).width;
      // The arrow and the padding take about 28 px of a native select.
      const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
      if (text > room + 1) problems.push('the drop-down "' + (select.labels[0]?.textContent || select.id) + '" cuts "' + option.text + '"');
    }
    return problems;
  })()`);
}

/** Tables wider than the box they scroll in: the region's name, by how much, and its columns' widths. */
export async function tableOverflow(page: Page): Promise<string[]> {
  return page.evaluate(`[...document.querySelectorAll(".table-wrap")]
    .filter((r) => r.getBoundingClientRect().width > 0 && r.scrollWidth > r.clientWidth + 1)
    .map((r) => r.getAttribute("aria-label") + " is wider than its box by " + (r.scrollWidth - r.clientWidth) +
      " px (columns " + [...r.querySelectorAll("thead th")].map((c) => Math.round(c.getBoundingClientRect().width)).join(", ") + ")")`);
}
