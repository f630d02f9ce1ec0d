/*
 * ssh_pwcheck.c - the password verifier (see ssh_pwcheck.h): a yescrypt or
 * sha512-crypt hash takes tens to hundreds of milliseconds of CPU and
 * memory bandwidth; run on the caller's thread it would stall everything
 * else that thread serves (in portzerod: the MADs).  Here it runs on a few
 * worker threads at low priority, at most queue_max attempts wait, and the
 * caller learns of verdicts through an eventfd.
 *
 * Each job lives in exactly one place: the waiting list, a worker's hands or
 * the finished list, all under the mutex; a worker reads only its job.
 */
#define _GNU_SOURCE
#include "ssh_pwcheck.h"

#include <crypt.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mbedtls/platform_util.h>

#include "ssh_wire.h"

#define PWCHECK_NICE 19 /* workers yield the CPU to the thread that serves the switch */

struct pw_job {
    struct pw_job *next;
    void *owner; /* NULL once cancelled */
    char *password;
    size_t pw_len;
    const char *setting, *hash;
    bool ok;
};

/* One worker thread and the job in its hands. */
struct pw_worker {
    struct ssh_pwcheck *pc;
    pthread_t thread;
    bool started;
    struct pw_job *job;
};

struct ssh_pwcheck {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct pw_job *wait_head, *wait_tail, *done_head, *done_tail;
    unsigned waiting, queue_max, n_workers;
    bool stopping;
    int efd;
    struct pw_worker *workers;
};

/* Wipes and frees a job. */
static void job_free(struct pw_job *j)
{
    if (!j)
        return;
    if (j->password) {
        mbedtls_platform_zeroize(j->password, j->pw_len);
        free(j->password);
    }
    free(j);
}

/* True if password hashes to hash under setting (constant-time compare). */
static bool job_verify(const struct pw_job *j)
{
    struct crypt_data *cd = calloc(1, sizeof(*cd));
    const char *out;
    bool ok = false;

    if (!cd)
        return false;
    out = crypt_rn(j->password, j->setting, cd, (int)sizeof(*cd));
    if (j->hash && out && out[0] != '*' && strlen(out) == strlen(j->hash))
        ok = ssh_ct_equal(out, j->hash, strlen(j->hash));
    mbedtls_platform_zeroize(cd, sizeof(*cd));
    free(cd);
    return ok;
}

/* Appends j to the list head/tail. */
static void list_append(struct pw_job **head, struct pw_job **tail, struct pw_job *j)
{
    j->next = NULL;
    if (*tail)
        (*tail)->next = j;
    else
        *head = j;
    *tail = j;
}

/* A worker: takes waiting jobs one at a time, verifies, posts the verdict. */
static void *worker_main(void *arg)
{
    struct pw_worker *w = arg;
    struct ssh_pwcheck *pc = w->pc;
    uint64_t one = 1;

    /* Linux nice values are per thread. */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), PWCHECK_NICE);
    pthread_mutex_lock(&pc->mu);
    for (;;) {
        struct pw_job *j;

        while (!pc->stopping && !pc->wait_head)
            pthread_cond_wait(&pc->cv, &pc->mu);
        if (pc->stopping)
            break;
        j = pc->wait_head;
        pc->wait_head = j->next;
        if (!pc->wait_head)
            pc->wait_tail = NULL;
        pc->waiting--;
        w->job = j;
        pthread_mutex_unlock(&pc->mu);
        j->ok = job_verify(j);
        mbedtls_platform_zeroize(j->password, j->pw_len);
        pthread_mutex_lock(&pc->mu);
        w->job = NULL;
        list_append(&pc->done_head, &pc->done_tail, j);
        if (write(pc->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
            break;
    }
    pthread_mutex_unlock(&pc->mu);
    return NULL;
}

/* Starts the workers with every signal blocked (the caller's thread takes them). */
static int start_workers(struct ssh_pwcheck *pc)
{
    sigset_t all, old;
    int rc = 0;

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (unsigned i = 0; i < pc->n_workers && !rc; i++) {
        pc->workers[i].pc = pc;
        rc = pthread_create(&pc->workers[i].thread, NULL, worker_main, &pc->workers[i]);
        pc->workers[i].started = rc == 0;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

/* Creates the verifier and starts its workers (see ssh_pwcheck.h). */
struct ssh_pwcheck *ssh_pwcheck_new(unsigned workers, unsigned queue_max, char *err, size_t errlen)
{
    struct ssh_pwcheck *pc = calloc(1, sizeof(*pc));

    if (!pc || !(pc->workers = calloc(workers ? workers : 1, sizeof(*pc->workers)))) {
        free(pc);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pc->n_workers = workers ? workers : 1;
    pc->queue_max = queue_max ? queue_max : 1;
    pthread_mutex_init(&pc->mu, NULL);
    pthread_cond_init(&pc->cv, NULL);
    pc->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (pc->efd < 0 || start_workers(pc) != 0) {
        snprintf(err, errlen, "password verifier: %s", strerror(errno));
        ssh_pwcheck_free(pc);
        return NULL;
    }
    return pc;
}

/* Frees a list of jobs. */
static void list_free(struct pw_job *j)
{
    while (j) {
        struct pw_job *next = j->next;

        job_free(j);
        j = next;
    }
}

/* Stops the workers (a hash in progress finishes first) and frees everything. */
void ssh_pwcheck_free(struct ssh_pwcheck *pc)
{
    if (!pc)
        return;
    pthread_mutex_lock(&pc->mu);
    pc->stopping = true;
    pthread_cond_broadcast(&pc->cv);
    pthread_mutex_unlock(&pc->mu);
    for (unsigned i = 0; i < pc->n_workers; i++) {
        if (pc->workers[i].started)
            pthread_join(pc->workers[i].thread, NULL);
        job_free(pc->workers[i].job); /* a worker stopped holding one only on a write error */
    }
    list_free(pc->wait_head);
    list_free(pc->done_head);
    if (pc->efd >= 0)
        close(pc->efd);
    pthread_cond_destroy(&pc->cv);
    pthread_mutex_destroy(&pc->mu);
    free(pc->workers);
    free(pc);
}

/* The eventfd the workers signal verdicts on. */
int ssh_pwcheck_fd(const struct ssh_pwcheck *pc)
{
    return pc->efd;
}

/* Queues a copy of the password for a worker; -1 when queue_max already wait. */
int ssh_pwcheck_submit(struct ssh_pwcheck *pc, void *owner, const char *password,
                       const char *setting, const char *hash)
{
    struct pw_job *j;
    size_t len = strlen(password);

    pthread_mutex_lock(&pc->mu);
    if (pc->waiting >= pc->queue_max) {
        pthread_mutex_unlock(&pc->mu);
        return -1;
    }
    pthread_mutex_unlock(&pc->mu); /* only this thread adds jobs: the room stays */
    j = calloc(1, sizeof(*j));
    if (!j || !(j->password = malloc(len + 1))) {
        free(j);
        return -1;
    }
    memcpy(j->password, password, len + 1);
    j->pw_len = len + 1;
    j->owner = owner;
    j->setting = setting;
    j->hash = hash;
    pthread_mutex_lock(&pc->mu);
    list_append(&pc->wait_head, &pc->wait_tail, j);
    pc->waiting++;
    pthread_cond_signal(&pc->cv);
    pthread_mutex_unlock(&pc->mu);
    return 0;
}

/* Clears owner in every job of the list. */
static void list_cancel(struct pw_job *j, void *owner)
{
    for (; j; j = j->next)
        if (j->owner == owner)
            j->owner = NULL;
}

/* Unlinks owner's waiting jobs, wiped and freed (never hashed); the mutex held.  Returns how
 * many went, each a place in the queue given back. */
static unsigned wait_list_remove(struct ssh_pwcheck *pc, void *owner)
{
    struct pw_job **link = &pc->wait_head, *prev = NULL;
    unsigned n = 0;

    while (*link) {
        struct pw_job *j = *link;

        if (j->owner != owner) {
            prev = j;
            link = &j->next;
            continue;
        }
        *link = j->next;
        if (pc->wait_tail == j)
            pc->wait_tail = prev;
        job_free(j);
        pc->waiting--;
        n++;
    }
    return n;
}

/* Forgets owner in every job, wherever it is: a waiting one leaves the queue unhashed, one
 * in a worker's hands or finished has its verdict dropped. */
void ssh_pwcheck_cancel(struct ssh_pwcheck *pc, void *owner)
{
    pthread_mutex_lock(&pc->mu);
    wait_list_remove(pc, owner);
    list_cancel(pc->done_head, owner);
    for (unsigned i = 0; i < pc->n_workers; i++)
        if (pc->workers[i].job && pc->workers[i].job->owner == owner)
            pc->workers[i].job->owner = NULL;
    pthread_mutex_unlock(&pc->mu);
}

/* Hands each finished verdict to fn; returns how many. */
unsigned ssh_pwcheck_collect(struct ssh_pwcheck *pc, ssh_pwcheck_verdict_fn fn, void *arg)
{
    uint64_t count;
    unsigned n = 0;

    if (read(pc->efd, &count, sizeof(count)) < 0 && errno != EAGAIN)
        return 0;
    /* One at a time: a verdict may cancel another owner's finished job. */
    for (;;) {
        struct pw_job *j;

        pthread_mutex_lock(&pc->mu);
        j = pc->done_head;
        if (j) {
            pc->done_head = j->next;
            if (!pc->done_head)
                pc->done_tail = NULL;
        }
        pthread_mutex_unlock(&pc->mu);
        if (!j)
            return n;
        if (j->owner) {
            fn(arg, j->owner, j->ok);
            n++;
        }
        job_free(j);
    }
}
