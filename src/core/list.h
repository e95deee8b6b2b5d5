/* list.h — the intrusive doubly linked list a driver keeps its connection's prepared
 * statements in (finalize unlinks one in O(1); disconnect frees what is left). Header-only,
 * no allocation: the link lives inside the driver's own struct. No database knowledge. */
#ifndef DG_LIST_H
#define DG_LIST_H

#include <stddef.h>

struct dg_link {
    struct dg_link *prev, *next;
};

struct dg_list {
    struct dg_link *head;
};

/* The struct of type that holds link as its member. */
#define DG_LIST_ENTRY(link, type, member) ((type *)(void *)((char *)(link) - offsetof(type, member)))

/* Puts n at the head of l. */
static inline void dg_list_add(struct dg_list *l, struct dg_link *n)
{
    n->prev = NULL;
    n->next = l->head;
    if (l->head)
        l->head->prev = n;
    l->head = n;
}

/* Takes n out of l; harmless when n is in no list (its links are then NULL). */
static inline void dg_list_del(struct dg_list *l, struct dg_link *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else if (l->head == n)
        l->head = n->next;
    if (n->next)
        n->next->prev = n->prev;
    n->prev = n->next = NULL;
}

/* Takes the head out of l and returns it; NULL when l is empty. */
static inline struct dg_link *dg_list_pop(struct dg_list *l)
{
    struct dg_link *n = l->head;
    if (n)
        dg_list_del(l, n);
    return n;
}

#endif
