/*
 * The minimal reference for `make bench` (bench/reports/reports_bench.py): the unpaid-orders rows to
 * XLSX as plainly as libsqlite3 and libxlsxwriter allow — the floor for `bookkeeper report
 * unpaid-orders --format xlsx`, whose target is at most 1.2 times this program's time.
 *
 * One statement (no count before it: the autofilter range and the totals row are set once the rows
 * are written), SQLite's default page cache, cells written as they come — a bold header, real dates,
 * text, money as numbers with one number format — a SUBTOTAL totals row with its value cached, in
 * constant-memory mode, into a temporary file beside the target that is synced and renamed into
 * place (the same atomic output bookkeeper keeps). No widths, no page set-up, no About sheet: what
 * bookkeeper does beyond this is what the ratio measures.
 *
 *     cc -O2 -o unpaid_orders_minimal unpaid_orders_minimal.c -lsqlite3 -lxlsxwriter
 *     unpaid_orders_minimal STORE UNTIL OUTPUT.xlsx
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <xlsxwriter.h>

/* The statement `bookkeeper report unpaid-orders --explain` shows. */
static const char *ROWS_SQL =
    "SELECT t0.\"date\", t1.\"name\", t0.\"number\", "
    "COALESCE((SELECT SUM(t2.\"sum\") FROM \"OrderRow\" t2 WHERE t2.\"order_id\" = t0.\"id\"), 0) "
    "FROM \"Order\" t0 LEFT JOIN \"Customer\" t1 ON t1.\"id\" = t0.\"customer_id\" "
    "WHERE ((t0.\"made\" IS ?1 AND t0.\"paid\" IS ?2) AND t0.\"date\" <= ?3) "
    "ORDER BY t0.\"date\" ASC, t1.\"name\" ASC, t0.\"id\" ASC";

static void fail(const char *what, const char *why) {
    fprintf(stderr, "unpaid_orders_minimal: %s: %s\n", what, why);
    exit(1);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: unpaid_orders_minimal STORE UNTIL OUTPUT.xlsx\n");
        return 64;
    }
    const char *until = argv[2], *output = argv[3];
    sqlite3 *db;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) fail(argv[1], sqlite3_errmsg(db));

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

    const char *titles[] = {"Date", "Customer", "Order", "Total"};
    for (int c = 0; c < 4; c++) worksheet_write_string(sheet, 0, c, titles[c], bold);

    sqlite3_stmt *rows;
    if (sqlite3_prepare_v2(db, ROWS_SQL, -1, &rows, NULL) != SQLITE_OK) fail("rows", sqlite3_errmsg(db));
    sqlite3_bind_int(rows, 1, 1);
    sqlite3_bind_int(rows, 2, 0);
    sqlite3_bind_text(rows, 3, until, -1, SQLITE_STATIC);
    int64_t total = 0;
    int r = 0, step;
    while ((step = sqlite3_step(rows)) == SQLITE_ROW) {
        r++;
        const unsigned char *day = sqlite3_column_text(rows, 0);
        if (day) {
            lxw_datetime value = {atoi((const char *)day), atoi((const char *)day + 5), atoi((const char *)day + 8), 0, 0, 0};
            worksheet_write_datetime(sheet, r, 0, &value, date);
        }
        for (int c = 1; c <= 2; c++) {
            const unsigned char *text = sqlite3_column_text(rows, c);
            if (text) worksheet_write_string(sheet, r, c, (const char *)text, NULL);
        }
        int64_t units = sqlite3_column_int64(rows, 3);
        total += units;
        worksheet_write_number(sheet, r, 3, (double)units / 100.0, money);
    }
    if (step != SQLITE_DONE) fail("rows", sqlite3_errmsg(db));
    sqlite3_finalize(rows);
    sqlite3_close(db);

    worksheet_autofilter(sheet, 0, 0, r, 3);
    if (r > 0) {
        char formula[64];
        snprintf(formula, sizeof formula, "=SUBTOTAL(109,D2:D%d)", r + 1);
        worksheet_write_string(sheet, r + 1, 0, "Total", bold);
        worksheet_write_formula_num(sheet, r + 1, 3, formula, money, (double)total / 100.0);
    }

    if (workbook_close(workbook) != LXW_NO_ERROR) fail(output, "cannot write the workbook");
    int fd = open(temporary, O_RDONLY);
    if (fd < 0 || fsync(fd) != 0) fail(output, "cannot sync");
    close(fd);
    if (rename(temporary, output) != 0) fail(output, "cannot replace");
    fd = open(directory, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) { fsync(fd); close(fd); }
    return 0;
}
