/* optable.c — option tables: lookups, the getopt_long table, parsing by kind with messages
 * that name the option, help lines and the stored JSON form. Pure: knows no command, no
 * database; never exits. */
#include "core/optable.h"

#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/clock.h"
#include "core/opts.h"

#define FIELD(base, o, type) ((type *)((char *)(base) + (o)->off))
#define CFIELD(base, o, type) ((const type *)((const char *)(base) + (o)->off))

void dg_optset_add(struct dg_optset *s, const struct dg_opt *tab, int n, void *base)
{
    if (s->n < DG_OPTSET_MAX) {
        s->tab[s->n] = tab;
        s->ntab[s->n] = n;
        s->base[s->n++] = base;
    }
}

int dg_opt_takes(const struct dg_opt *o, const char *sub)
{
    if (!o->subs || !sub)
        return 1;
    size_t len = strlen(sub);
    for (const char *p = o->subs; (p = strstr(p, sub)); p += len)
        if ((p == o->subs || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
            return 1;
    return 0;
}

const char *dg_opt_key(const struct dg_opt *o, char *buf, size_t n)
{
    snprintf(buf, n, "%s", o->key ? o->key : o->name);
    for (char *c = buf; *c; c++)
        if (*c == '-')
            *c = '_';
    return buf;
}

struct dg_opt_ref dg_optset_find(const struct dg_optset *s, const char *name)
{
    if (!strncmp(name, "--", 2))
        name += 2;
    for (int t = 0; t < s->n; t++)
        for (int i = 0; i < s->ntab[t]; i++)
            if (!strcmp(s->tab[t][i].name, name))
                return (struct dg_opt_ref){t, i, &s->tab[t][i]};
    return (struct dg_opt_ref){-1, -1, NULL};
}

struct dg_opt_ref dg_optset_find_key(const struct dg_optset *s, const char *key)
{
    char buf[64];
    for (int t = 0; t < s->n; t++)
        for (int i = 0; i < s->ntab[t]; i++)
            if (!strcmp(dg_opt_key(&s->tab[t][i], buf, sizeof buf), key))
                return (struct dg_opt_ref){t, i, &s->tab[t][i]};
    return (struct dg_opt_ref){-1, -1, NULL};
}

int dg_optset_longopts(const struct dg_optset *s, struct option *out, int cap)
{
    int k = 0;
    for (int t = 0; t < s->n; t++)
        for (int i = 0; i < s->ntab[t]; i++) {
            if (k >= cap - 2)
                return -1;
            const struct dg_opt *o = &s->tab[t][i];
            out[k++] = (struct option){o->name, o->kind == DG_OPT_FLAG ? no_argument : required_argument,
                                       NULL, DG_OPTVAL(t, i)};
        }
    out[k++] = (struct option){"help", no_argument, NULL, DG_OPTVAL_HELP};
    out[k++] = (struct option){NULL, 0, NULL, 0};
    return k;
}

struct dg_opt_ref dg_optset_from_val(const struct dg_optset *s, int val)
{
    int t = (val - 1000) / 256, i = (val - 1000) % 256;
    if (val < 1000 || t >= s->n || i >= s->ntab[t])
        return (struct dg_opt_ref){-1, -1, NULL};
    return (struct dg_opt_ref){t, i, &s->tab[t][i]};
}

static int parse_enum(void *base, const struct dg_opt *o, const char *flag, const char *arg, struct dg_err *err)
{
    int n = 0;
    for (; o->names[n]; n++)
        if (!strcmp(arg, o->names[n])) {
            *FIELD(base, o, int) = o->enum_first + n;
            return 0;
        }
    char list[256] = "";
    for (int i = 0; i < n; i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", o->names[i]);
    }
    return dg_err_set(err, DG_ERR_USER, 0, "%s: '%s' is not %s", flag, DG_TEXT(arg), list);
}

static int parse_int_list(void *base, const struct dg_opt *o, const char *flag, const char *arg, struct dg_err *err)
{
    struct dg_int_list *l = FIELD(base, o, struct dg_int_list);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", arg);
    l->n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (l->n == DG_INT_LIST_MAX)
            return dg_err_set(err, DG_ERR_USER, 0, "%s: at most %d values", flag, DG_INT_LIST_MAX);
        if (dg_parse_int(flag, tok, (int)o->min, (int)o->max, &l->v[l->n++], err))
            return -1;
    }
    return l->n ? 0 : dg_err_set(err, DG_ERR_USER, 0, "%s: '%s' lists no value", flag, DG_TEXT(arg));
}

static int parse_kind(void *base, const struct dg_opt *o, const char *flag, const char *arg, struct dg_err *err)
{
    switch (o->kind) {
    case DG_OPT_CUSTOM: return o->parse(base, o, arg, err);
    case DG_OPT_FLAG: *FIELD(base, o, int) = 1; return 0;
    case DG_OPT_INT: return dg_parse_int(flag, arg, (int)o->min, (int)o->max, FIELD(base, o, int), err);
    case DG_OPT_U64:
        return dg_parse_u64(flag, arg, (uint64_t)o->min, o->max >= 1.8e19 ? UINT64_MAX : (uint64_t)o->max,
                            FIELD(base, o, uint64_t), err);
    case DG_OPT_DOUBLE: return dg_parse_double(flag, arg, o->min, o->max, FIELD(base, o, double), err);
    case DG_OPT_DURATION: return dg_parse_duration(flag, arg, FIELD(base, o, dg_ns), err);
    case DG_OPT_SIZE: return dg_parse_size(flag, arg, FIELD(base, o, uint64_t), err);
    case DG_OPT_STRING: *FIELD(base, o, const char *) = arg; return 0;
    case DG_OPT_ENUM: return parse_enum(base, o, flag, arg, err);
    case DG_OPT_INT_LIST: return parse_int_list(base, o, flag, arg, err);
    }
    return dg_err_set(err, DG_ERR_FATAL, 0, "%s: unknown option kind", flag);
}

int dg_optset_apply(const struct dg_optset *s, struct dg_opt_ref r, const char *arg, struct dg_err *err)
{
    if (!r.o)
        return dg_err_set(err, DG_ERR_USER, 0, "unknown option");
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", r.o->name);
    if (r.o->kind != DG_OPT_FLAG && r.o->kind != DG_OPT_CUSTOM && !arg)
        return dg_err_set(err, DG_ERR_USER, 0, "%s needs a value", flag);
    if (parse_kind(s->base[r.t], r.o, flag, arg, err))
        return -1;
    if (r.o->flags & DG_OF_HAS_SET)
        *(int *)((char *)s->base[r.t] + r.o->set_off) = 1;
    return 0;
}

void dg_opt_usage(FILE *out, const struct dg_opt *o, const char *where)
{
    char head[96];
    snprintf(head, sizeof head, "--%s%s%s", o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
    const char *h = o->help ? o->help : "";
    const char *nl = strchr(h, '\n');
    int first = nl ? (int)(nl - h) : (int)strlen(h);
    fprintf(out, "  %-28s %s%.*s\n", head, where ? where : "", first, h);
    for (h = nl; h; h = nl) {
        nl = strchr(++h, '\n');
        fprintf(out, "  %-28s %.*s\n", "", nl ? (int)(nl - h) : (int)strlen(h), h);
    }
}

void dg_optset_usage(const struct dg_optset *s, FILE *out, const char *sub,
                     int (*skip)(void *ctx, const struct dg_opt *o), void *ctx)
{
    for (int t = 0; t < s->n; t++)
        for (int i = 0; i < s->ntab[t]; i++) {
            const struct dg_opt *o = &s->tab[t][i];
            if ((sub && !dg_opt_takes(o, sub)) || (skip && skip(ctx, o)))
                continue;
            char where[96] = "";
            if (!sub && o->subs)
                snprintf(where, sizeof where, "(%s) ", o->subs);
            dg_opt_usage(out, o, where);
        }
}

/* Whether an entry's value is its zero (not given, for DG_OF_IF_SET). */
static int unset(const void *base, const struct dg_opt *o)
{
    if (o->flags & DG_OF_HAS_SET)
        return !*(const int *)((const char *)base + o->set_off);
    switch (o->kind) {
    case DG_OPT_FLAG:
    case DG_OPT_INT:
    case DG_OPT_ENUM: return *CFIELD(base, o, int) == 0;
    case DG_OPT_U64:
    case DG_OPT_SIZE: return *CFIELD(base, o, uint64_t) == 0;
    case DG_OPT_DURATION: return *CFIELD(base, o, dg_ns) == 0;
    case DG_OPT_DOUBLE: return *CFIELD(base, o, double) == 0;
    case DG_OPT_STRING: return *CFIELD(base, o, char *) == NULL;
    case DG_OPT_INT_LIST: return CFIELD(base, o, struct dg_int_list)->n == 0;
    case DG_OPT_CUSTOM: return 0;
    }
    return 0;
}

static void json_one(const void *base, const struct dg_opt *o, cJSON *j)
{
    if (o->json_fn) {
        o->json_fn(base, o, j);
        return;
    }
    if ((o->flags & DG_OF_IF_SET) && unset(base, o))
        return;
    switch (o->kind) {
    case DG_OPT_FLAG: cJSON_AddBoolToObject(j, o->json, *CFIELD(base, o, int)); break;
    case DG_OPT_INT: cJSON_AddNumberToObject(j, o->json, *CFIELD(base, o, int)); break;
    case DG_OPT_U64:
    case DG_OPT_SIZE: cJSON_AddNumberToObject(j, o->json, (double)*CFIELD(base, o, uint64_t)); break;
    case DG_OPT_DOUBLE: cJSON_AddNumberToObject(j, o->json, *CFIELD(base, o, double)); break;
    case DG_OPT_DURATION: cJSON_AddNumberToObject(j, o->json, (double)*CFIELD(base, o, dg_ns) / 1e9); break;
    case DG_OPT_STRING: {
        const char *v = *CFIELD(base, o, char *);
        cJSON_AddStringToObject(j, o->json, v ? v : "");
        break;
    }
    case DG_OPT_ENUM: {
        int v = *CFIELD(base, o, int) - o->enum_first, n = 0;
        while (o->names[n])
            n++;
        cJSON_AddStringToObject(j, o->json, v >= 0 && v < n ? o->names[v] : "default");
        break;
    }
    case DG_OPT_INT_LIST: {
        const struct dg_int_list *l = CFIELD(base, o, struct dg_int_list);
        cJSON_AddItemToObject(j, o->json, cJSON_CreateIntArray(l->v, l->n));
        break;
    }
    case DG_OPT_CUSTOM: break;
    }
}

void dg_optset_json(const struct dg_optset *s, const char *sub, cJSON *obj)
{
    for (int t = 0; t < s->n; t++)
        for (int i = 0; i < s->ntab[t]; i++) {
            const struct dg_opt *o = &s->tab[t][i];
            if (o->json && dg_opt_takes(o, sub))
                json_one(s->base[t], o, obj);
        }
}
