/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The records of the zip container of .npz files, as the reader
 * (planzip.c) and the writer (planzip-writer.c) both know them: each
 * starts with its signature, little-endian, and has a fixed part of the
 * size given here before its variable fields. */

#ifndef __PLAN_ZIP_PRIVATE_H__
#define __PLAN_ZIP_PRIVATE_H__

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_END64_LOCATOR 0x07064b50u

#define LOCAL_SIZE 30
#define CENTRAL_SIZE 46
#define END_SIZE 22
#define END64_SIZE 56
#define LOCATOR_SIZE 20

#endif /* __PLAN_ZIP_PRIVATE_H__ */
