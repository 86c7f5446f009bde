/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Tables of address ranges that a fault handler looks up: the mapped
 * windows of files (planmappedfile.c, SIGBUS) and the read-only input
 * copies of a checked custom kernel (plancustom.c, SIGSEGV).
 *
 * A signal handler may run on any thread while others add and remove
 * ranges, and may take no lock. So a table is a fixed array of slots that
 * is never freed, and the handler reads only the slots themselves, never
 * memory that a remove may free. The thread that claimed a slot writes it
 * between two increments of the slot's sequence number, which is odd
 * while it writes; the handler takes what it read of a slot only when the
 * sequence was even and the same before and after, so that it never sees
 * the start of one range with the end of another. Every access is a
 * lock-free atomic, which is async-signal-safe. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plan-private.h"

/* A free slot for a range, to be published, or -1 when all are taken. */
gint
_plan_fault_slots_claim (PlanFaultSlot * slots, guint n_slots)
{
  guint i;

  for (i = 0; i < n_slots; i++)
    if (g_atomic_int_compare_and_exchange (&slots[i].owned, 0, 1))
      return i;
  return -1;
}

static void
slot_write (PlanFaultSlot * slot, gpointer base, gpointer end, gpointer data)
{
  g_atomic_int_inc (&slot->seq);        /* odd: being written */
  g_atomic_pointer_set (&slot->base, base);
  g_atomic_pointer_set (&slot->end, end);
  g_atomic_pointer_set (&slot->data, data);
  g_atomic_pointer_set (&slot->mark, NULL);
  g_atomic_int_inc (&slot->seq);        /* even: whole */
}

/* Makes the @size bytes at @base, with @data, visible to
 * _plan_fault_slots_find() in the slot claimed. */
void
_plan_fault_slots_publish (PlanFaultSlot * slot, gpointer base, gsize size,
    gpointer data)
{
  slot_write (slot, base, (guint8 *) base + size, data);
}

/* Takes the range out, before its pages go, and frees the slot; returns
 * its mark. */
gpointer
_plan_fault_slots_release (PlanFaultSlot * slot)
{
  gpointer mark = g_atomic_pointer_get (&slot->mark);

  slot_write (slot, NULL, NULL, NULL);
  g_atomic_int_set (&slot->owned, 0);
  return mark;
}

/* The slot whose range holds @addr, with its data in @data, or NULL.
 * Async-signal-safe. A slot being written is passed over: a range is
 * published before any thread is given its pages, and released after
 * the last is done with them, so a fault inside a range never finds its
 * slot being written. */
PlanFaultSlot *
_plan_fault_slots_find (PlanFaultSlot * slots, guint n_slots,
    gconstpointer addr, gpointer * data)
{
  guint i;

  for (i = 0; i < n_slots; i++) {
    PlanFaultSlot *slot = &slots[i];
    guint seq = (guint) g_atomic_int_get (&slot->seq);
    const guint8 *base, *end;
    gpointer d;

    if (seq & 1)
      continue;
    base = g_atomic_pointer_get (&slot->base);
    end = g_atomic_pointer_get (&slot->end);
    d = g_atomic_pointer_get (&slot->data);
    if ((guint) g_atomic_int_get (&slot->seq) != seq || base == NULL
        || (const guint8 *) addr < base || (const guint8 *) addr >= end)
      continue;
    *data = d;
    return slot;
  }
  return NULL;
}
