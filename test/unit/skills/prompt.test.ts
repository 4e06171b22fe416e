// skills.md §8 and §13 cases 23–24: the index, its cost, and active blocks.
import { describe, expect, it } from "vitest";
import {
  escapeXml,
  indexCost,
  renderActive,
  renderIndex,
  renderIndexText,
  renderInstructions,
  tokenEstimate,
  type IndexItem,
} from "../../../src/core/skills/index.js";

const item = (name: string, description: string, skill_file: string, triggers: string[] = []): IndexItem => ({
  name,
  description,
  skill_file,
  triggers,
});

const C4 = [item("pdf-tools", 'Fill & sign <PDF> "forms"', "/Users/al/.claude/skills/pdf-tools/SKILL.md")];
const C5 = [
  item(
    "auto-coder",
    "Autonomous code generation. Reads context, writes code, runs tests.",
    "/w/.clawseed/skills/auto-coder/SKILL.md",
    ["write code", "implement feature"],
  ),
];
const C6 = [item("notes", "Alice's notes", "C:\\Users\\al\\.claude\\skills\\notes\\SKILL.md")];
const COST_TABLE: Array<[string, IndexItem[], number]> = [
  ["C1", [], 0],
  ["C2", [item("a", "b", "c")], 295],
  ["C3", [item("github", "GitHub ops", "/x/SKILL.md"), item("w", "d", "/y")], 420],
  ["C4", C4, 389],
  ["C5", C5, 463],
  ["C6", C6, 356],
  ["C7", [...C4, ...C5, ...C6], 818],
];

describe("prompt index", () => {
  it.each(COST_TABLE)(
    "case 23 %s: the rendered index is exactly as long as the cost formula says",
    (_id, items, cost) => {
      expect(indexCost(items)).toBe(cost);
      expect(renderIndexText(items).length).toBe(cost);
      expect(renderIndex(items)).toEqual({ text: renderIndexText(items), costChars: cost });
    },
  );

  it("case 23: token estimates are ceil(chars / 4): 74 for C2, 105 for C3, 205 for C7", () => {
    expect(tokenEstimate(indexCost(COST_TABLE[1]![1]))).toBe(74);
    expect(tokenEstimate(indexCost(COST_TABLE[2]![1]))).toBe(105);
    expect(tokenEstimate(indexCost(COST_TABLE[6]![1]))).toBe(205);
  });

  it("renders the exact §8.1 layout, sorted by name, with a triggers line only when there are triggers", () => {
    const text = renderIndexText([
      item("zeta", "Last & best", "/z/SKILL.md", ["a", "b"]),
      item("alpha", "First", "/a/SKILL.md"),
    ]);
    expect(text).toBe(
      [
        "",
        "",
        "Each skill below packages step-by-step instructions for one kind of job.",
        "When a task matches a skill, call the skill tool with its name to load it fully.",
        "",
        "<available_skills>",
        "  <skill>",
        "    <name>alpha</name>",
        "    <description>First</description>",
        "    <location>/a/SKILL.md</location>",
        "  </skill>",
        "  <skill>",
        "    <name>zeta</name>",
        "    <description>Last &amp; best</description>",
        "    <triggers>a, b</triggers>",
        "    <location>/z/SKILL.md</location>",
        "  </skill>",
        "</available_skills>",
      ].join("\n"),
    );
  });

  it("escapes & first, then < > \" and ', and keeps line breaks in descriptions", () => {
    expect(escapeXml(`a&b <c> "d" 'e' &amp;`)).toBe(
      "a&amp;b &lt;c&gt; &quot;d&quot; &apos;e&apos; &amp;amp;",
    );
    expect(renderIndexText([item("m", "one\ntwo", "/m")])).toContain("<description>one\ntwo</description>");
  });
});

describe("active blocks", () => {
  it("case 24: {baseDir} is replaced and a closing tag in the body is neutralised", () => {
    const block = renderActive(
      { name: "x", skill_file: "/w/skills/x/SKILL.md", path: "/w/skills/x" },
      "Run {baseDir}/run.sh\nNever print </active_skill> here.",
    );
    expect(block).toBe(
      '<active_skill name="x" location="/w/skills/x/SKILL.md">\nRun /w/skills/x/run.sh\nNever print &lt;/active_skill> here.\n</active_skill>',
    );
    expect(block.length).toBe(131);
  });

  it("a block is 51 + name + location + body long, with leading blank lines and trailing space removed", () => {
    const block = renderActive(
      {
        name: "auto-coder",
        skill_file: "/w/.clawseed/skills/auto-coder/SKILL.md",
        path: "/w/.clawseed/skills/auto-coder",
      },
      "\n  \n# Auto Coder\nRead before you write.\n\n  ",
    );
    expect(block.length).toBe(135);
  });

  it("active blocks follow the index in activation order, each after a blank line", () => {
    expect(renderInstructions("INDEX", ["A", "B"])).toBe("INDEX\n\nA\n\nB");
    expect(renderInstructions("", [])).toBe("");
  });
});
