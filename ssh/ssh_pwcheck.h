/*
 * ssh_pwcheck.h - the password verifier: a few worker threads that run
 * crypt(3) off the caller's thread, a bounded queue of attempts, and the
 * verdicts handed back through an eventfd the caller polls.
 *
 * Threads: ssh_pwcheck_submit, _cancel, _collect and _free are called from
 * the one thread that owns the server and its connections; only the workers
 * run elsewhere, and they touch nothing but their job (a copy of the password
 * and the server's read-only hash strings).
 */
#ifndef PZ_SSH_PWCHECK_H
#define PZ_SSH_PWCHECK_H

#include <stdbool.h>
#include <stddef.h>

struct ssh_pwcheck;

/* A verdict: the connection (the owner pointer given at submit) and whether the
 * password matched. */
typedef void (*ssh_pwcheck_verdict_fn)(void *arg, void *owner, bool ok);

/* Starts workers threads (at nice 19) with room for queue_max attempts waiting
 * for one; NULL with a message in err on failure. */
struct ssh_pwcheck *ssh_pwcheck_new(unsigned workers, unsigned queue_max, char *err, size_t errlen);
/* Stops and joins the workers, wipes and frees every job. */
void ssh_pwcheck_free(struct ssh_pwcheck *pc);
/* Readable when verdicts wait for ssh_pwcheck_collect. */
int ssh_pwcheck_fd(const struct ssh_pwcheck *pc);
/* Queues "does password hash to hash under setting" for owner (hash NULL: hash with
 * setting and fail); the strings setting and hash must outlive pc.  Returns 0, or -1
 * when queue_max attempts already wait (or no memory): then nothing is queued. */
int ssh_pwcheck_submit(struct ssh_pwcheck *pc, void *owner, const char *password,
                       const char *setting, const char *hash);
/* owner is going away: its queued, running or finished attempt is dropped. */
void ssh_pwcheck_cancel(struct ssh_pwcheck *pc, void *owner);
/* Calls fn for each finished attempt whose owner is still there; returns how many. */
unsigned ssh_pwcheck_collect(struct ssh_pwcheck *pc, ssh_pwcheck_verdict_fn fn, void *arg);

#endif
