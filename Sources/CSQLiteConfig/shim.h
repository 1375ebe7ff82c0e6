// sqlite3_db_config is variadic, which Swift cannot call: one wrapper per option the store sets.
#include <sqlite3.h>

/// SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE (SQLite 3.25): when `on`, closing the connection neither checkpoints the
/// write-ahead log into the database file nor removes the -wal and -shm files, even when it is the last one.
static inline int bk_set_no_checkpoint_on_close(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, on, (int *)0);
}
