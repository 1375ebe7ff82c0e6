/*
 * The unpaid-orders report as a user would write it by hand on the plain store (bench/reference/load_plain.sql):
 * the target reference of `bookkeeper report unpaid-orders --format xlsx` in bench/reports/reports_bench.py
 * (issue 27). One statement, exactly issue 27's, through libsqlite3 with its defaults; the cells written as they
 * come with libxlsxwriter in constant-memory mode — a bold header, real dates, text, money as numbers with one
 * number format — then an autofilter and a SUBTOTAL totals row with its value cached (the two things the report
 * definition asks for, so that both workbooks hold the same values). Written to a temporary file beside the
 * target, synced and renamed into place: the atomic output any program that replaces a user's file owes them.
 *
 *     cc -O2 -o unpaid_orders_plain unpaid_orders_plain.c -lsqlite3 -lxlsxwriter
 *     unpaid_orders_plain PLAIN.sqlite OUTPUT.xlsx
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <xlsxwriter.h>

static const char *ROWS_SQL =
    "SELECT o.date, c.name, o.number, (SELECT sum(r.sum_cents) FROM row r WHERE r.order_id = o.id) "
    "FROM \"order\" o LEFT JOIN customer c ON c.id = o.customer_id "
    "WHERE o.made = 1 AND o.paid = 0 ORDER BY o.date, c.name";

static void fail(const char *what, const char *why) {
    fprintf(stderr, "unpaid_orders_plain: %s: %s\n", what, why);
    exit(1);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: unpaid_orders_plain PLAIN.sqlite OUTPUT.xlsx\n");
        return 64;
    }
    const char *output = argv[2];
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
    int64_t total = 0;
    int r = 0, step;
    while ((step = sqlite3_step(rows)) == SQLITE_ROW) {
        r++;
        const unsigned char *day = sqlite3_column_text(rows, 0);
        const char *d = (const char *)day;  /* YYYY-MM-DD */
        lxw_datetime value = {atoi(d), atoi(d + 5), atoi(d + 8), 0, 0, 0};
        worksheet_write_datetime(sheet, r, 0, &value, date);
        for (int c = 1; c <= 2; c++) {
            const unsigned char *text = sqlite3_column_text(rows, c);
            if (text) worksheet_write_string(sheet, r, c, (const char *)text, NULL);
        }
        int64_t cents = sqlite3_column_int64(rows, 3);  /* NULL (an order without rows) reads as 0 */
        total += cents;
        worksheet_write_number(sheet, r, 3, (double)cents / 100.0, money);
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
