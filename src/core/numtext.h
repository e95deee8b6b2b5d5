/* numtext.h — integers and exact decimals (DG_T_DEC: v / 10^scale) written as the text a
 * server parses, for every driver that sends numbers as text (parameters, COPY, LOAD DATA,
 * ODBC SQL_C_CHAR). Pure functions: no allocation, no locale, no printf. */
#ifndef DG_NUMTEXT_H
#define DG_NUMTEXT_H

#include <stddef.h>
#include <stdint.h>

#define DG_DEC_MAX_SCALE 30
/* Room dg_dec_text needs: sign, 20 digits, a point, and up to DG_DEC_MAX_SCALE zeros, and the NUL. */
#define DG_DEC_TEXT_MAX 56

/* out needs 21 bytes (u64) / 22 (i64); they return the length written, no NUL. */
size_t dg_u64_text(char *out, uint64_t v);
size_t dg_i64_text(char *out, int64_t v);
/* v / 10^scale written exactly ("12.50", "-0.05", "1200" for scale -2), NUL-terminated;
 * out needs DG_DEC_TEXT_MAX bytes. Returns the length (without the NUL), or 0 when scale
 * is outside -DG_DEC_MAX_SCALE..DG_DEC_MAX_SCALE (out is then ""). */
size_t dg_dec_text(char *out, int64_t v, int scale);

#endif
