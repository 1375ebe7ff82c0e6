/*
 * The reference for `make bench` (bench/reports/reports_bench.py): the unpaid-orders report to XLSX,
 * written by hand in C with libsqlite3 and libxlsxwriter — the floor a Swift report engine could
 * reach with the same libraries.
 *
 * It does what `bookkeeper report unpaid-orders --format xlsx` does, and no more: the same two
 * statements (the count, then the rows, in one read transaction), and the same cells — a bold,
 * frozen header under an autofilter, real dates, order numbers as text, totals as numbers with
 * #,##0.00, a SUBTOTAL(109, …) totals row with its value cached, column widths from the longest
 * value, an About sheet, the title property — in constant-memory mode, into a temporary file beside
 * the target that is synced and renamed into place.
 *
 *     cc -O2 -o unpaid_orders unpaid_orders.c -lsqlite3 -lxlsxwriter
 *     unpaid_orders STORE UNTIL OUTPUT.xlsx
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <xlsxwriter.h>

/* The statements the fetch plan compiles to (`bookkeeper report unpaid-orders --explain` shows the second;
 * the count is the plan's count statement). */
static const char *COUNT_SQL =
    "SELECT COUNT(*) FROM \"Order\" t0 WHERE ((t0.\"made\" IS ?1 AND t0.\"paid\" IS ?2) AND t0.\"date\" <= ?3)";
static const char *ROWS_SQL =
    "SELECT t0.\"date\", t1.\"name\", t0.\"number\", "
    "COALESCE((SELECT SUM(t2.\"sum\") FROM \"OrderRow\" t2 WHERE t2.\"order_id\" = t0.\"id\"), 0) "
    "FROM \"Order\" t0 LEFT JOIN \"Customer\" t1 ON t1.\"id\" = t0.\"customer_id\" "
    "WHERE ((t0.\"made\" IS ?1 AND t0.\"paid\" IS ?2) AND t0.\"date\" <= ?3) "
    "ORDER BY t0.\"date\" ASC, t1.\"name\" ASC, t0.\"id\" ASC";

static void fail(const char *what, const char *why) {
    fprintf(stderr, "unpaid_orders: %s: %s\n", what, why);
    exit(1);
}

static void bind(sqlite3_stmt *s, const char *until) {
    sqlite3_bind_int(s, 1, 1);
    sqlite3_bind_int(s, 2, 0);
    sqlite3_bind_text(s, 3, until, -1, SQLITE_STATIC);
}

/* Characters (not bytes) of UTF-8 text, for column widths. */
static int width(const unsigned char *text) {
    int n = 0;
    for (; *text; text++) if ((*text & 0xC0) != 0x80) n++;
    return n;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: unpaid_orders STORE UNTIL OUTPUT.xlsx\n");
        return 64;
    }
    const char *until = argv[2], *output = argv[3];
    sqlite3 *db;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) fail(argv[1], sqlite3_errmsg(db));
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);

    sqlite3_stmt *count, *rows;
    if (sqlite3_prepare_v2(db, COUNT_SQL, -1, &count, NULL) != SQLITE_OK) fail("count", sqlite3_errmsg(db));
    bind(count, until);
    if (sqlite3_step(count) != SQLITE_ROW) fail("count", sqlite3_errmsg(db));
    int n = sqlite3_column_int(count, 0);
    sqlite3_finalize(count);

    char temporary[4096], directory[4096];
    snprintf(temporary, sizeof temporary, "%s.%d.tmp", output, (int)getpid());
    snprintf(directory, sizeof directory, "%s", output);
    char *slash = strrchr(directory, '/');
    if (slash) *slash = 0; else strcpy(directory, ".");
    lxw_workbook_options options = {.constant_memory = LXW_TRUE, .tmpdir = directory, .use_zip64 = LXW_FALSE};
    lxw_workbook *workbook = workbook_new_opt(temporary, &options);
    if (!workbook) fail(output, "cannot create the workbook");
    lxw_worksheet *sheet = workbook_add_worksheet(workbook, "unpaid-orders");
    lxw_format *bold = workbook_add_format(workbook);
    format_set_bold(bold);
    lxw_format *date = workbook_add_format(workbook);
    format_set_num_format(date, "yyyy-mm-dd");
    lxw_format *money = workbook_add_format(workbook);
    format_set_num_format(money, "#,##0.00");
    lxw_format *boldMoney = workbook_add_format(workbook);
    format_set_bold(boldMoney);
    format_set_num_format(boldMoney, "#,##0.00");

    const char *titles[] = {"Date", "Customer", "Order", "Total"};
    int widths[4];
    for (int c = 0; c < 4; c++) {
        worksheet_write_string(sheet, 0, c, titles[c], bold);
        widths[c] = (int)strlen(titles[c]) + 3;
    }
    worksheet_freeze_panes(sheet, 1, 0);
    worksheet_autofilter(sheet, 0, 0, n, 3);
    worksheet_ignore_errors(sheet, LXW_IGNORE_NUMBER_STORED_AS_TEXT, "A1:XFD1048576");

    if (sqlite3_prepare_v2(db, ROWS_SQL, -1, &rows, NULL) != SQLITE_OK) fail("rows", sqlite3_errmsg(db));
    bind(rows, until);
    int64_t total = 0;
    int r = 0, step;
    char shown[64];
    while ((step = sqlite3_step(rows)) == SQLITE_ROW) {
        r++;
        const unsigned char *day = sqlite3_column_text(rows, 0);
        if (day) {
            lxw_datetime value = {atoi((const char *)day), atoi((const char *)day + 5), atoi((const char *)day + 8), 0, 0, 0};
            worksheet_write_datetime(sheet, r, 0, &value, date);
            if (widths[0] < 10) widths[0] = 10;
        }
        for (int c = 1; c <= 2; c++) {
            const unsigned char *text = sqlite3_column_text(rows, c);
            if (!text) continue;
            worksheet_write_string(sheet, r, c, (const char *)text, NULL);
            int w = width(text);
            if (w > widths[c]) widths[c] = w;
        }
        int64_t units = sqlite3_column_int64(rows, 3);
        total += units;
        worksheet_write_number(sheet, r, 3, (double)units / 100.0, money);
        int w = snprintf(shown, sizeof shown, "%.2f", (double)units / 100.0);
        w += (w - 4) / 3;                               /* thousands separators */
        if (w > widths[3]) widths[3] = w;
    }
    if (step != SQLITE_DONE) fail("rows", sqlite3_errmsg(db));
    if (r != n) fail("rows", "the count and the rows disagree");
    sqlite3_finalize(rows);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(db);

    if (n > 0) {
        char formula[64];
        snprintf(formula, sizeof formula, "=SUBTOTAL(109,D2:D%d)", n + 1);
        worksheet_write_string(sheet, n + 1, 0, "Total", bold);
        worksheet_write_formula_num(sheet, n + 1, 3, formula, boldMoney, (double)total / 100.0);
    }
    for (int c = 0; c < 4; c++) worksheet_set_column(sheet, c, c, widths[c] + 1 > 60 ? 60 : widths[c] + 1, NULL);

    lxw_worksheet *about = workbook_add_worksheet(workbook, "About");
    const char *labels[] = {"Title", "Sheet", "Description", "Parameters", "Until", "Sort", "Generated", "Rows"};
    const char *values[] = {"Completed but unpaid orders", "unpaid-orders", "Orders that are made but not yet paid, oldest first.",
                            NULL, until, "Date, Customer", "now", NULL};
    for (int i = 0; i < 8; i++) {
        worksheet_write_string(about, i, 0, labels[i], bold);
        if (values[i]) worksheet_write_string(about, i, 1, values[i], NULL);
    }
    worksheet_write_number(about, 7, 1, n, NULL);
    lxw_doc_properties properties = {.title = "Completed but unpaid orders"};
    workbook_set_properties(workbook, &properties);

    if (workbook_close(workbook) != LXW_NO_ERROR) fail(output, "cannot write the workbook");
    int fd = open(temporary, O_RDONLY);
    if (fd < 0 || fsync(fd) != 0) fail(output, "cannot sync");
    close(fd);
    if (rename(temporary, output) != 0) fail(output, "cannot replace");
    fd = open(directory, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) { fsync(fd); close(fd); }
    return 0;
}
