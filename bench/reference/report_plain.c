/*
 * Any report as a user with several reports would write it by hand on the plain store (bench/reference/load_plain.sql):
 * one small program that turns a statement into a sheet, driven by the statement (a file, its column names the
 * header) and a list of column types — rather than one program per report that differ only in those two things.
 * The target reference of `bookkeeper report NAME --format xlsx` in bench/reports/reports_bench.py (issue 27) for
 * every shipped report but unpaid-orders (whose own program, unpaid_orders_plain.c, is issue 27's and does the same).
 *
 * One statement through libsqlite3 with its defaults, named parameters bound from the command line; the cells
 * written as they come with libxlsxwriter in constant-memory mode — a bold header, real dates, text, numbers,
 * money and quantities as numbers with one number format each — then an autofilter, a SUBTOTAL totals row with
 * its values cached (for the columns marked `+`), and a column chart when asked (sales-by-month's); the header row
 * frozen. Written to a temporary file beside the target, synced and renamed into place, as unpaid_orders_plain.c.
 *
 *     cc -O2 -o report_plain report_plain.c -lsqlite3 -lxlsxwriter
 *     report_plain PLAIN.sqlite STATEMENT.sql TYPES OUTPUT.xlsx [sheet=NAME] [chart=CATEGORY:VALUES:TITLE] [@P=V]...
 *
 * TYPES is a comma-separated list, one per column: text, int, date (YYYY-MM-DD), month (YYYY-MM, shown as a
 * month), money (integer cents), qty (integer thousandths); a type ending in `+` is totalled. CATEGORY and VALUES
 * are column numbers from 0. A NULL is an empty cell.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <xlsxwriter.h>

enum kind { TEXT, INT, DATE, MONTH, MONEY, QTY };
#define MAX_COLUMNS 32

static void fail(const char *what, const char *why) {
    fprintf(stderr, "report_plain: %s: %s\n", what, why);
    exit(1);
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) fail(path, "cannot read");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc(n + 1);
    if (!text || fread(text, 1, n, f) != (size_t)n) fail(path, "cannot read");
    text[n] = 0;
    fclose(f);
    return text;
}

static void column_name(int c, char *out) {  /* 0 → A, 26 → AA */
    char reversed[8];
    int n = 0;
    for (c++; c > 0; c = (c - 1) / 26) reversed[n++] = 'A' + (c - 1) % 26;
    for (int i = 0; i < n; i++) out[i] = reversed[n - 1 - i];
    out[n] = 0;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: report_plain PLAIN.sqlite STATEMENT.sql TYPES OUTPUT.xlsx [sheet=NAME] "
                        "[chart=CATEGORY:VALUES:TITLE] [@PARAM=VALUE]...\n");
        return 64;
    }
    const char *output = argv[4], *sheet_name = "Sheet1", *chart_spec = NULL;
    enum kind kinds[MAX_COLUMNS];
    int totalled[MAX_COLUMNS] = {0}, columns = 0;
    char *types = strdup(argv[3]);
    for (char *t = strtok(types, ","); t; t = strtok(NULL, ",")) {
        if (columns == MAX_COLUMNS) fail(argv[3], "too many columns");
        size_t n = strlen(t);
        if (n && t[n - 1] == '+') { totalled[columns] = 1; t[n - 1] = 0; }
        kinds[columns++] = !strcmp(t, "text") ? TEXT : !strcmp(t, "int") ? INT : !strcmp(t, "date") ? DATE
                         : !strcmp(t, "month") ? MONTH : !strcmp(t, "money") ? MONEY : !strcmp(t, "qty") ? QTY
                         : (fail(t, "not a column type (text, int, date, month, money, qty)"), TEXT);
    }

    sqlite3 *db;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) fail(argv[1], sqlite3_errmsg(db));
    sqlite3_stmt *rows;
    if (sqlite3_prepare_v2(db, slurp(argv[2]), -1, &rows, NULL) != SQLITE_OK) fail(argv[2], sqlite3_errmsg(db));
    if (sqlite3_column_count(rows) != columns) fail(argv[3], "not as many types as the statement has columns");
    for (int i = 5; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) fail(argv[i], "not NAME=VALUE");
        *eq = 0;
        if (!strcmp(argv[i], "sheet")) sheet_name = eq + 1;
        else if (!strcmp(argv[i], "chart")) chart_spec = eq + 1;
        else {
            int p = sqlite3_bind_parameter_index(rows, argv[i]);
            if (p == 0) fail(argv[i], "the statement has no such parameter");
            sqlite3_bind_text(rows, p, eq + 1, -1, SQLITE_STATIC);
        }
    }

    char temporary[4096], directory[4096];
    snprintf(temporary, sizeof temporary, "%s.%d.tmp", output, (int)getpid());
    snprintf(directory, sizeof directory, "%s", output);
    char *slash = strrchr(directory, '/');
    if (slash) *slash = 0; else strcpy(directory, ".");
    lxw_workbook_options options = {.constant_memory = LXW_TRUE, .tmpdir = directory, .use_zip64 = LXW_FALSE};
    lxw_workbook *workbook = workbook_new_opt(temporary, &options);
    if (!workbook) fail(output, "cannot create the workbook");
    lxw_worksheet *sheet = workbook_add_worksheet(workbook, sheet_name);
    lxw_format *bold = workbook_add_format(workbook);
    format_set_bold(bold);
    lxw_format *formats[6] = {NULL};
    const char *patterns[6] = {NULL, "#,##0", "yyyy-mm-dd", "mmm yyyy", "#,##0.00", "#,##0.000"};
    lxw_format *bold_formats[6] = {bold};
    for (int k = INT; k <= QTY; k++) {
        formats[k] = workbook_add_format(workbook);
        format_set_num_format(formats[k], patterns[k]);
        bold_formats[k] = workbook_add_format(workbook);
        format_set_num_format(bold_formats[k], patterns[k]);
        format_set_bold(bold_formats[k]);
    }

    for (int c = 0; c < columns; c++) worksheet_write_string(sheet, 0, c, sqlite3_column_name(rows, c), bold);
    worksheet_freeze_panes(sheet, 1, 0);
    int64_t totals[MAX_COLUMNS] = {0};
    int r = 0, step;
    while ((step = sqlite3_step(rows)) == SQLITE_ROW) {
        r++;
        for (int c = 0; c < columns; c++) {
            if (sqlite3_column_type(rows, c) == SQLITE_NULL) continue;
            switch (kinds[c]) {
            case TEXT:
                worksheet_write_string(sheet, r, c, (const char *)sqlite3_column_text(rows, c), NULL);
                break;
            case DATE: case MONTH: {
                const char *d = (const char *)sqlite3_column_text(rows, c);  /* YYYY-MM-DD or YYYY-MM */
                lxw_datetime value = {atoi(d), atoi(d + 5), kinds[c] == DATE ? atoi(d + 8) : 1, 0, 0, 0};
                worksheet_write_datetime(sheet, r, c, &value, formats[kinds[c]]);
                break;
            }
            default: {
                int64_t n = sqlite3_column_int64(rows, c);
                totals[c] += n;
                double scale = kinds[c] == MONEY ? 100.0 : kinds[c] == QTY ? 1000.0 : 1.0;
                worksheet_write_number(sheet, r, c, (double)n / scale, formats[kinds[c]]);
            }
            }
        }
    }
    if (step != SQLITE_DONE) fail(argv[2], sqlite3_errmsg(db));
    sqlite3_finalize(rows);
    sqlite3_close(db);

    worksheet_autofilter(sheet, 0, 0, r, columns - 1);
    if (r > 0) {
        worksheet_write_string(sheet, r + 1, 0, "Total", bold);
        for (int c = 1; c < columns; c++) {
            if (!totalled[c]) continue;
            char formula[64], name[8];
            column_name(c, name);
            snprintf(formula, sizeof formula, "=SUBTOTAL(109,%s2:%s%d)", name, name, r + 1);
            double scale = kinds[c] == MONEY ? 100.0 : kinds[c] == QTY ? 1000.0 : 1.0;
            worksheet_write_formula_num(sheet, r + 1, c, formula, bold_formats[kinds[c]], (double)totals[c] / scale);
        }
    }
    if (chart_spec) {  /* CATEGORY:VALUES:TITLE, over the rows written */
        int category = atoi(chart_spec), values = atoi(strchr(chart_spec, ':') + 1);
        const char *title = strchr(strchr(chart_spec, ':') + 1, ':') + 1;
        char a[8], b[8], categories[128], series[128];
        column_name(category, a);
        column_name(values, b);
        snprintf(categories, sizeof categories, "='%s'!$%s$2:$%s$%d", sheet_name, a, a, r + 1);
        snprintf(series, sizeof series, "='%s'!$%s$2:$%s$%d", sheet_name, b, b, r + 1);
        lxw_chart *chart = workbook_add_chart(workbook, LXW_CHART_COLUMN);
        chart_add_series(chart, categories, series);
        chart_title_set_name(chart, title);
        chart_legend_set_position(chart, LXW_CHART_LEGEND_NONE);
        worksheet_insert_chart(sheet, 1, columns + 1, chart);
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
