// The one data table of the screens: a labelled native <table> (screen readers announce rows and
// columns), described by its columns, with optional sorting (header buttons that set `aria-sort`), row
// classes (e.g. "inactive") and an empty state in place of an empty table. A table wider than the
// window scrolls sideways inside its own region, which the keyboard reaches (Tab, then the arrow keys),
// and its actions column stays in view (sticky, styles.css), so a row's buttons are never off screen.
import { useMemo, useState, type ReactNode } from "react";
import { Empty } from "./common.js";

export interface Column<Row> {
  /** Stable name of the column (the React key and the sort key). */
  id: string;
  header: string;
  /** The header is read by screen readers only (an actions column). */
  hideHeader?: boolean;
  /** Classes of every cell of the column ("mono wrap", "nowrap", "actions"). */
  className?: string;
  cell: (row: Row) => ReactNode;
  /** Makes the column sortable by this value (strings compare as they are: lower-case them first). */
  sortValue?: (row: Row) => string | number;
}

export interface SortState {
  column: string;
  ascending: boolean;
}

/** The last column: buttons acting on the row, with a header only screen readers read. */
export function actionsColumn<Row>(cell: (row: Row) => ReactNode): Column<Row> {
  return { id: "actions", header: "Actions", hideHeader: true, className: "actions", cell };
}

function sortRows<Row>(rows: readonly Row[], column: Column<Row> | undefined, ascending: boolean): Row[] {
  const value = column?.sortValue;
  if (!value) return [...rows];
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    const order = x < y ? -1 : x > y ? 1 : 0;
    return ascending ? order : -order;
  });
}

/** The box a wide table scrolls sideways in: a named region the keyboard reaches (axe: scrollable-region-focusable). */
export function TableScroll(props: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={`${props.label} (table)`} tabIndex={0}>
      {props.children}
    </div>
  );
}

function HeaderCell<Row>(props: {
  column: Column<Row>;
  sort: SortState | null;
  onSort: (column: string) => void;
}) {
  const { column, sort } = props;
  if (column.hideHeader) {
    return (
      <th scope="col" className={column.className}>
        <span className="visually-hidden">{column.header}</span>
      </th>
    );
  }
  if (!column.sortValue) return <th scope="col">{column.header}</th>;
  const sorted = sort?.column === column.id;
  const direction = sorted ? (sort.ascending ? "ascending" : "descending") : "none";
  return (
    <th scope="col" aria-sort={direction}>
      <button type="button" className="sort-button" onClick={() => props.onSort(column.id)}>
        {column.header}
        <span aria-hidden="true">{sorted ? (sort.ascending ? " ▲" : " ▼") : ""}</span>
      </button>
    </th>
  );
}

export function Table<Row>(props: {
  /** The table's accessible name. */
  label: string;
  columns: Array<Column<Row>>;
  rows: readonly Row[];
  rowKey: (row: Row) => string;
  rowClassName?: (row: Row) => string | undefined;
  /** `data-*` attributes of a row (what tests and styles find it by). */
  rowData?: (row: Row) => Record<`data-${string}`, string>;
  /** Extra class of the table ("entries", "activity"). */
  className?: string;
  /** Sorting starts on this column; clicking a sortable header sorts by it, again reverses. */
  initialSort?: SortState;
  /** Shown instead of the table when there are no rows; without it an empty table shows its headers. */
  empty?: ReactNode;
}) {
  const [sort, setSort] = useState<SortState | null>(props.initialSort ?? null);
  const { rows, columns } = props;
  const sorted = useMemo(
    () =>
      sort
        ? sortRows(
            rows,
            columns.find((c) => c.id === sort.column),
            sort.ascending,
          )
        : rows,
    [rows, columns, sort],
  );
  const onSort = (column: string) =>
    setSort((s) => ({ column, ascending: s?.column === column ? !s.ascending : true }));

  if (rows.length === 0 && props.empty !== undefined) return <Empty>{props.empty}</Empty>;
  return (
    <TableScroll label={props.label}>
      <table className={props.className ? `table ${props.className}` : "table"} aria-label={props.label}>
        <thead>
          <tr>
            {columns.map((column) => (
              <HeaderCell key={column.id} column={column} sort={sort} onSort={onSort} />
            ))}
          </tr>
        </thead>
        <tbody>
          {sorted.map((row) => (
            <tr key={props.rowKey(row)} className={props.rowClassName?.(row)} {...props.rowData?.(row)}>
              {columns.map((column) => (
                <td key={column.id} className={column.className}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
