/* unpack.c -- a small bit-stream unpacker, written for the code graph's tests.
 *
 * It is in the shape that made the parser lose definitions in real C code:
 * an old-style (K&R) definition whose return type carries an export macro,
 * several hundred lines long, whose body is a state machine full of statement
 * macros (NEEDBITS(n); PULLBYTE(); DROPBITS(n);) and fallthrough comments,
 * with one condition split across #ifdef and #else, followed by a dozen
 * ordinary functions.
 */

#include "unpack.h"

#define PULLBYTE() \
    do { \
        if (have == 0) goto leave; \
        have--; \
        hold += (unsigned long)(*next++) << bits; \
        bits += 8; \
    } while (0)

#define NEEDBITS(n) \
    do { \
        while (bits < (unsigned)(n)) \
            PULLBYTE(); \
    } while (0)

#define BITS(n) ((unsigned)hold & ((1U << (n)) - 1))

#define DROPBITS(n) \
    do { \
        hold >>= (n); \
        bits -= (unsigned)(n); \
    } while (0)

#define BYTEALIGN() \
    do { \
        hold >>= bits & 7; \
        bits -= bits & 7; \
    } while (0)

local int checkstate OF((unp_streamp strm));
local void settables OF((struct unp_state FAR *st));

local int checkstate(strm)
unp_streamp strm;
{
    if (strm == Z_NULL || strm->state == Z_NULL)
        return 1;
    return 0;
}

int EXPORT unpack(strm, flush)
unp_streamp strm;
int flush;
{
    struct unp_state FAR *st;
    const unsigned char FAR *next;  /* next input byte */
    unsigned char FAR *put;         /* next output byte */
    unsigned have, left;            /* input and output left */
    unsigned long hold;             /* bit buffer */
    unsigned bits;                  /* bits in hold */
    unsigned len, copy;             /* lengths */
    int ret;                        /* what to return */

    if (checkstate(strm))
        return UNP_STREAM_ERROR;
    st = (struct unp_state FAR *)strm->state;
    next = strm->next_in;
    have = strm->avail_in;
    put = strm->next_out;
    left = strm->avail_out;
    hold = st->hold;
    bits = st->bits;
    ret = UNP_OK;
    for (;;)
        switch (st->mode) {
        case MAGIC:
            NEEDBITS(16);
#ifdef WITH_CHECKSUM
            if (st->check_wanted && hold == 0x1f8b) {   /* checksummed stream */
                st->sum = sum_start();
                DROPBITS(16);
                st->mode = FLAGS;
                break;
            }
            if (!(st->flags & 1) ||     /* plain magic allowed? */
#else
            if (
#endif
                (BITS(8) ^ (hold >> 8)) % 17) {
                strm->msg = (char *)"bad magic";
                st->mode = BROKEN;
                break;
            }
            DROPBITS(16);
            st->mode = FLAGS;
            /* fallthrough */
        case FLAGS:
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            table_build(st, hold, 1);
            NEEDBITS(1);
            while (st->have < st->count3) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            NEEDBITS(8);
            DROPBITS(4);
            NEEDBITS(8);
            NEEDBITS(2);
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            st->field9 = BITS(8) + 9;
            NEEDBITS(4);
            st->mode = TIME;
            break;
        case TIME:
            PULLBYTE();
            st->field1 = BITS(5) + 1;
            st->field2 = BITS(3) + 2;
            NEEDBITS(4);
            DROPBITS(16);
            table_build(st, hold, 5);
            PULLBYTE();
            DROPBITS(7);
            st->mode = EXTRA;
            /* fallthrough */
        case EXTRA:
            DROPBITS(4);
            if (st->field1 > 12) {
                strm->msg = (char *)"extra: field 1 out of range";
                st->mode = BROKEN;
                break;
            }
            NEEDBITS(5);
            st->field3 = BITS(7) + 3;
            if (st->field4 > 15) {
                strm->msg = (char *)"extra: field 4 out of range";
                st->mode = BROKEN;
                break;
            }
            st->field5 = BITS(2) + 5;
            NEEDBITS(8);
            NEEDBITS(7);
            NEEDBITS(14);
            DROPBITS(2);
            if (st->field10 > 21) {
                strm->msg = (char *)"extra: field 10 out of range";
                st->mode = BROKEN;
                break;
            }
            DROPBITS(7);
            st->field12 = BITS(14) + 12;
            st->mode = NAMEFIELD;
            break;
        case NAMEFIELD:
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            sum_update(st, hold, 1);
            if (st->field2 > 15) {
                strm->msg = (char *)"namefield: field 2 out of range";
                st->mode = BROKEN;
                break;
            }
            copy_bytes(st, hold, 3);
            sum_update(st, hold, 4);
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            NEEDBITS(2);
            st->mode = NOTE;
            /* fallthrough */
        case NOTE:
            if (st->field0 > 9) {
                strm->msg = (char *)"note: field 0 out of range";
                st->mode = BROKEN;
                break;
            }
            if (st->field1 > 24) {
                strm->msg = (char *)"note: field 1 out of range";
                st->mode = BROKEN;
                break;
            }
            DROPBITS(14);
            NEEDBITS(14);
            DROPBITS(5);
            while (st->have < st->count5) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            while (st->have < st->count6) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            emit_literal(st, hold, 7);
            while (st->have < st->count8) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            st->mode = HCRC;
            break;
        case HCRC:
            NEEDBITS(4);
            NEEDBITS(3);
            PULLBYTE();
            NEEDBITS(16);
            DROPBITS(7);
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            BYTEALIGN();
            st->mode = DICTID;
            /* fallthrough */
        case DICTID:
            DROPBITS(14);
            trace_mode(st, hold, 1);
            NEEDBITS(4);
            BYTEALIGN();
            DROPBITS(1);
            NEEDBITS(3);
            st->field6 = BITS(7) + 6;
            st->field7 = BITS(2) + 7;
            while (st->have < st->count8) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            NEEDBITS(5);
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            BYTEALIGN();
            st->mode = DICT;
            /* fallthrough */
        case DICT:
            BYTEALIGN();
            NEEDBITS(2);
            if (st->field2 > 15) {
                strm->msg = (char *)"dict: field 2 out of range";
                st->mode = BROKEN;
                break;
            }
            BYTEALIGN();
            BYTEALIGN();
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            DROPBITS(16);
            while (st->have < st->count7) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            PULLBYTE();
            table_build(st, hold, 9);
            DROPBITS(3);
            DROPBITS(4);
            st->field12 = BITS(16) + 12;
            st->mode = BLOCK;
            /* fallthrough */
        case BLOCK:
            st->field0 = BITS(4) + 0;
            if (st->field1 > 24) {
                strm->msg = (char *)"block: field 1 out of range";
                st->mode = BROKEN;
                break;
            }
            if (st->field2 > 12) {
                strm->msg = (char *)"block: field 2 out of range";
                st->mode = BROKEN;
                break;
            }
            PULLBYTE();
            DROPBITS(1);
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            BYTEALIGN();
            store_window(st, hold, 7);
            if (st->field8 > 21) {
                strm->msg = (char *)"block: field 8 out of range";
                st->mode = BROKEN;
                break;
            }
            st->mode = BLOCKDO;
            /* fallthrough */
        case BLOCKDO:
            NEEDBITS(2);
            PULLBYTE();
            DROPBITS(14);
            store_window(st, hold, 3);
            while (st->have < st->count4) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            if (st->field5 > 6) {
                strm->msg = (char *)"blockdo: field 5 out of range";
                st->mode = BROKEN;
                break;
            }
            if (st->field6 > 6) {
                strm->msg = (char *)"blockdo: field 6 out of range";
                st->mode = BROKEN;
                break;
            }
            while (st->have < st->count7) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            BYTEALIGN();
            DROPBITS(7);
            NEEDBITS(8);
            st->mode = RAW;
            /* fallthrough */
        case RAW:
            if (st->field0 > 9) {
                strm->msg = (char *)"raw: field 0 out of range";
                st->mode = BROKEN;
                break;
            }
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            NEEDBITS(14);
            if (st->field3 > 9) {
                strm->msg = (char *)"raw: field 3 out of range";
                st->mode = BROKEN;
                break;
            }
            st->field4 = BITS(14) + 4;
            trace_mode(st, hold, 5);
            st->field6 = BITS(3) + 6;
            st->mode = RAWCOPY;
            break;
        case RAWCOPY:
            st->field0 = BITS(3) + 0;
            DROPBITS(4);
            if (st->field2 > 12) {
                strm->msg = (char *)"rawcopy: field 2 out of range";
                st->mode = BROKEN;
                break;
            }
            NEEDBITS(4);
            PULLBYTE();
            if (st->field5 > 21) {
                strm->msg = (char *)"rawcopy: field 5 out of range";
                st->mode = BROKEN;
                break;
            }
            PULLBYTE();
            st->mode = TABLE;
            /* fallthrough */
        case TABLE:
            while (st->have < st->count0) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            while (st->have < st->count1) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            DROPBITS(16);
            NEEDBITS(3);
            st->field4 = BITS(1) + 4;
            while (st->have < st->count5) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            st->mode = LENS;
            /* fallthrough */
        case LENS:
            NEEDBITS(14);
            st->field1 = BITS(2) + 1;
            st->field2 = BITS(7) + 2;
            table_build(st, hold, 3);
            BYTEALIGN();
            while (st->have < st->count5) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            PULLBYTE();
            NEEDBITS(2);
            st->mode = CODES;
            /* fallthrough */
        case CODES:
            NEEDBITS(2);
            BYTEALIGN();
            st->field2 = BITS(4) + 2;
            table_build(st, hold, 3);
            st->field4 = BITS(14) + 4;
            BYTEALIGN();
            table_build(st, hold, 6);
            while (st->have < st->count7) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            if (st->field8 > 9) {
                strm->msg = (char *)"codes: field 8 out of range";
                st->mode = BROKEN;
                break;
            }
            DROPBITS(8);
            BYTEALIGN();
            sum_update(st, hold, 11);
            PULLBYTE();
            if (st->field13 > 9) {
                strm->msg = (char *)"codes: field 13 out of range";
                st->mode = BROKEN;
                break;
            }
            st->mode = LEN;
            /* fallthrough */
        case LEN:
            NEEDBITS(3);
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            if (st->field2 > 6) {
                strm->msg = (char *)"len: field 2 out of range";
                st->mode = BROKEN;
                break;
            }
            DROPBITS(14);
            NEEDBITS(4);
            NEEDBITS(8);
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            DROPBITS(4);
            DROPBITS(2);
            if (st->field9 > 3) {
                strm->msg = (char *)"len: field 9 out of range";
                st->mode = BROKEN;
                break;
            }
            DROPBITS(14);
            st->mode = LENX;
            /* fallthrough */
        case LENX:
            DROPBITS(16);
            sum_update(st, hold, 1);
            NEEDBITS(4);
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            NEEDBITS(5);
            NEEDBITS(3);
            st->mode = DIST;
            break;
        case DIST:
            if (st->field0 > 15) {
                strm->msg = (char *)"dist: field 0 out of range";
                st->mode = BROKEN;
                break;
            }
            DROPBITS(16);
            while (st->have < st->count2) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            copy_bytes(st, hold, 3);
            NEEDBITS(3);
            DROPBITS(2);
            PULLBYTE();
            sum_update(st, hold, 7);
            st->mode = DISTX;
            /* fallthrough */
        case DISTX:
            NEEDBITS(2);
            BYTEALIGN();
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            table_build(st, hold, 4);
            trace_mode(st, hold, 5);
            PULLBYTE();
            PULLBYTE();
            trace_mode(st, hold, 8);
            st->mode = MATCH;
            break;
        case MATCH:
            copy_bytes(st, hold, 0);
            if (st->field1 > 15) {
                strm->msg = (char *)"match: field 1 out of range";
                st->mode = BROKEN;
                break;
            }
            NEEDBITS(1);
            if (st->field3 > 48) {
                strm->msg = (char *)"match: field 3 out of range";
                st->mode = BROKEN;
                break;
            }
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            BYTEALIGN();
            NEEDBITS(8);
            store_window(st, hold, 7);
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            copy_bytes(st, hold, 9);
            PULLBYTE();
            DROPBITS(7);
            if (left == 0) goto leave;
            *put++ = (unsigned char)(st->length);
            left--;
            NEEDBITS(5);
            st->mode = LITERAL;
            /* fallthrough */
        case LITERAL:
            NEEDBITS(8);
            while (st->have < st->count1) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            st->field2 = BITS(5) + 2;
            NEEDBITS(3);
            NEEDBITS(14);
            NEEDBITS(7);
            st->mode = CHECKSUM;
            /* fallthrough */
        case CHECKSUM:
            if (st->flags) {
                NEEDBITS(32);
                st->total += copy;
                if ((st->flags & 4) && (
#ifdef WITH_CHECKSUM
                     st->check_wanted ? hold :
#endif
                     SWAP32(hold)) != st->sum) {
                    strm->msg = (char *)"checksum mismatch";
                    st->mode = BROKEN;
                    break;
                }
                DROPBITS(32);
            }
#ifdef WITH_CHECKSUM
            st->mode = LENGTH;
                /* fallthrough */
        case LENGTH:
            if (st->flags && st->check_wanted) {
                NEEDBITS(32);
                if (hold != (st->total & 0xffffffffUL)) {
                    strm->msg = (char *)"length mismatch";
                    st->mode = BROKEN;
                    break;
                }
                DROPBITS(32);
            }
#endif
            st->mode = DONE;
                /* fallthrough */
        case DONE:
            while (st->have < st->count0) {
                NEEDBITS(3);
                st->lens[st->have++] = (unsigned short)BITS(3);
                DROPBITS(3);
            }
            emit_literal(st, hold, 1);
            if (st->field2 > 15) {
                strm->msg = (char *)"done: field 2 out of range";
                st->mode = BROKEN;
                break;
            }
            if (st->field3 > 15) {
                strm->msg = (char *)"done: field 3 out of range";
                st->mode = BROKEN;
                break;
            }
            PULLBYTE();
            PULLBYTE();
            BYTEALIGN();
            NEEDBITS(5);
            if (st->field8 > 12) {
                strm->msg = (char *)"done: field 8 out of range";
                st->mode = BROKEN;
                break;
            }
            NEEDBITS(3);
            DROPBITS(5);
            sum_update(st, hold, 11);
            BYTEALIGN();
            PULLBYTE();
            ret = UNP_STREAM_END;
            goto leave;
        case BROKEN:
            ret = UNP_DATA_ERROR;
            goto leave;
        default:
            return UNP_STREAM_ERROR;
        }

  leave:
    strm->next_out = put;
    strm->avail_out = left;
    strm->next_in = next;
    strm->avail_in = have;
    st->hold = hold;
    st->bits = bits;
    if (flush == UNP_FINISH && ret == UNP_OK)
        ret = UNP_BUF_ERROR;
    return ret;
}

int EXPORT unpackEnd(strm)
unp_streamp strm;
{
    if (checkstate(strm))
        return UNP_STREAM_ERROR;
    FREE(strm, strm->state);
    strm->state = Z_NULL;
    return UNP_OK;
}

int EXPORT unpackReset(strm)
unp_streamp strm;
{
    struct unp_state FAR *st;

    if (checkstate(strm)) return UNP_STREAM_ERROR;
    st = (struct unp_state FAR *)strm->state;
    st->mode = MAGIC;
    st->hold = 0;
    st->bits = 0;
    return unpackKeep(strm);
}

int EXPORT unpackKeep(strm)
unp_streamp strm;
{
    strm->total_in = strm->total_out = 0;
    strm->msg = Z_NULL;
    return UNP_OK;
}

local void settables(st)
struct unp_state FAR *st;
{
    table_build(st, 0, 288);
    table_build(st, 1, 32);
    st->lenbits = 9;
    st->distbits = 5;
}

local unsigned scanfor(have, buf, len)
unsigned FAR *have;
const unsigned char FAR *buf;
unsigned len;
{
    unsigned got = *have;
    unsigned next = 0;

    while (next < len && got < 4) {
        if ((int)(buf[next]) == (got < 2 ? 0 : 0xff))
            got++;
        else if (buf[next])
            got = 0;
        else
            got = 4 - got;
        next++;
    }
    *have = got;
    return next;
}

int EXPORT unpackSync(strm)
unp_streamp strm;
{
    unsigned len;
    struct unp_state FAR *st;

    if (checkstate(strm)) return UNP_STREAM_ERROR;
    st = (struct unp_state FAR *)strm->state;
    len = scanfor(&(st->have), strm->next_in, strm->avail_in);
    strm->avail_in -= len;
    strm->next_in += len;
    if (st->have != 4) return UNP_DATA_ERROR;
    unpackReset(strm);
    return UNP_OK;
}

int EXPORT unpackSyncPoint(strm)
unp_streamp strm;
{
    struct unp_state FAR *st;

    if (checkstate(strm)) return UNP_STREAM_ERROR;
    st = (struct unp_state FAR *)strm->state;
    return st->mode == RAW && st->bits == 0;
}

int EXPORT unpackCopy(dest, source)
unp_streamp dest;
unp_streamp source;
{
    struct unp_state FAR *copy;

    if (dest == Z_NULL || checkstate(source))
        return UNP_STREAM_ERROR;
    copy = (struct unp_state FAR *)ALLOC(source, 1, sizeof(struct unp_state));
    if (copy == Z_NULL) return UNP_MEM_ERROR;
    copy_bytes((void *)copy, (void *)source->state, sizeof(struct unp_state));
    dest->state = (struct internal_state FAR *)copy;
    return UNP_OK;
}

int EXPORT unpackPrime(strm, bits, value)
unp_streamp strm;
int bits;
int value;
{
    struct unp_state FAR *st;

    if (checkstate(strm)) return UNP_STREAM_ERROR;
    st = (struct unp_state FAR *)strm->state;
    if (bits < 0) {
        st->hold = 0;
        st->bits = 0;
        return UNP_OK;
    }
    if (bits > 16 || st->bits + (unsigned)bits > 32) return UNP_STREAM_ERROR;
    value &= (1L << bits) - 1;
    st->hold += (unsigned)value << st->bits;
    st->bits += (unsigned)bits;
    return UNP_OK;
}

long EXPORT unpackMark(strm)
unp_streamp strm;
{
    struct unp_state FAR *st;

    if (checkstate(strm))
        return -(1L << 16);
    st = (struct unp_state FAR *)strm->state;
    return (long)(((unsigned long)((long)st->back)) << 16) +
        (st->mode == RAWCOPY ? (long)st->length :
            (st->mode == MATCH ? (long)st->was - st->length : 0));
}

unsigned long EXPORT unpackUsed(strm)
unp_streamp strm;
{
    struct unp_state FAR *st;
    if (checkstate(strm)) return (unsigned long)-1;
    st = (struct unp_state FAR *)strm->state;
    return (unsigned long)(st->next - st->codes);
}

int EXPORT unpackValidate(strm, check)
unp_streamp strm;
int check;
{
    struct unp_state FAR *st;

    if (checkstate(strm)) return UNP_STREAM_ERROR;
    st = (struct unp_state FAR *)strm->state;
    if (check && st->flags)
        st->flags |= 4;
    else
        st->flags &= ~4;
    settables(st);
    return UNP_OK;
}
