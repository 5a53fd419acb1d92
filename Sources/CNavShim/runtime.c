// runtime.c: the WebKit thread's runtime: Xvfb, GTK, the main loop and its
// job queue, the sandbox check, and the live-object counters behind
// nw_stats_get. See include/navshim.h for the contract.
#define _GNU_SOURCE
#include "navshim-private.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

long nw_live_views;
long nw_live_handlers;
long nw_live_user_contexts;
long nw_live_resources;
long nw_live_evaluations;
long nw_live_decisions;
long nw_live_downloads;
long nw_live_web_contexts;

// MARK: - Runtime

int nw_xvfb_start(const char *xvfb_path, int *out_pid, char **out_error) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        *out_error = g_strdup_printf("cannot create a pipe for Xvfb: %s", g_strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        *out_error = g_strdup_printf("cannot fork Xvfb: %s", g_strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        // Child: only async-signal-safe calls from here on. The forking
        // thread may block or ignore signals (Swift's threads do); Xvfb must
        // start with default signal handling, or SIGTERM never reaches it.
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() == 1) _exit(1);  // the parent is already gone
        int null_fd = open("/dev/null", O_RDWR);
        if (null_fd >= 0) {
            dup2(null_fd, 0);
            dup2(null_fd, 1);
            dup2(null_fd, 2);
        }
        int write_fd = dup(fds[1]);  // a copy without O_CLOEXEC
        char fd_text[16];
        snprintf(fd_text, sizeof fd_text, "%d", write_fd);
        char *argv[] = {(char *)xvfb_path, "-displayfd", fd_text, "-nolisten", "tcp",
                        "-screen", "0", "1280x1024x24", NULL};
        execv(xvfb_path, argv);
        _exit(127);
    }
    close(fds[1]);
    char buffer[32] = {0};
    size_t used = 0;
    while (used < sizeof buffer - 1) {
        struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
        int ready = poll(&pfd, 1, 15000);
        if (ready <= 0) break;
        ssize_t n = read(fds[0], buffer + used, sizeof buffer - 1 - used);
        if (n <= 0) break;
        used += (size_t)n;
        if (memchr(buffer, '\n', used)) break;
    }
    close(fds[0]);
    char *end = NULL;
    long display = strtol(buffer, &end, 10);
    if (used == 0 || end == buffer) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
        *out_error = g_strdup_printf("Xvfb (%s) did not report a display number", xvfb_path);
        return -1;
    }
    *out_pid = pid;
    return (int)display;
}

void nw_xvfb_stop(int pid) {
    if (pid <= 0) return;
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
}

int nw_runtime_init(char **out_error) {
    // Named for `top -H`, `perf` and debuggers: it would otherwise keep the
    // name of the thread that created it (often a Swift pool thread's).
    pthread_setname_np(pthread_self(), "navwatch-webkit");
    g_setenv("WEBKIT_DISABLE_COMPOSITING_MODE", "1", FALSE);
    g_setenv("NO_AT_BRIDGE", "1", FALSE);
    // No accessibility bus runs here: an empty address keeps web processes
    // from warning that they cannot reach it.
    g_setenv("WEBKIT_A11Y_BUS_ADDRESS", "", FALSE);
    g_setenv("GDK_BACKEND", "x11", FALSE);
    if (!gtk_init_check(NULL, NULL)) {
        const char *display = g_getenv("DISPLAY");
        *out_error = g_strdup_printf("cannot open the X display %s", display ? display : "(DISPLAY is unset)");
        return 0;
    }
    return 1;
}

void nw_runtime_run(void) {
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    g_main_loop_run(loop);
}

typedef struct {
    void (*job)(void *);
    void *data;
} nw_job;

static gboolean on_job_ready(gpointer user_data) {
    nw_job *job = user_data;
    job->job(job->data);
    return G_SOURCE_REMOVE;
}

void nw_runtime_enqueue(void (*job)(void *data), void *data) {
    nw_job *item = g_new(nw_job, 1);
    item->job = job;
    item->data = data;
    GSource *source = g_idle_source_new();
    g_source_set_priority(source, G_PRIORITY_DEFAULT);
    g_source_set_callback(source, on_job_ready, item, g_free);
    g_source_attach(source, NULL);
    g_source_unref(source);
}

int nw_current_thread_id(void) { return (int)gettid(); }

void nw_free(void *pointer) { g_free(pointer); }

// MARK: - Sandbox

int nw_sandbox_check(const char *bubblewrap_path, char **out_error) {
    if (!g_file_test(bubblewrap_path, G_FILE_TEST_IS_EXECUTABLE)) {
        *out_error = g_strdup_printf("%s is missing", bubblewrap_path);
        return 0;
    }
    // What WebKit's launcher asks of bubblewrap that a container may refuse:
    // namespaces (a user namespace among them) and a /proc of their own.
    const char *argv[] = {bubblewrap_path, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
                          "--proc", "/proc", "/bin/true", NULL};
    g_autofree char *errors = NULL;
    g_autoptr(GError) error = NULL;
    int status = 0;
    if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &errors,
                      &status, &error)) {
        *out_error = g_strdup_printf("%s cannot run: %s", bubblewrap_path, error->message);
        return 0;
    }
    if (!g_spawn_check_wait_status(status, NULL)) {
        *out_error = g_strdup_printf("%s cannot create a sandbox: %s", bubblewrap_path,
                                     errors && *errors ? g_strstrip(errors) : "it failed");
        return 0;
    }
    return 1;
}

uint64_t nw_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

// MARK: - Accounting

nw_stats nw_stats_get(void) {
    return (nw_stats){.views = nw_live_views,
                      .signal_handlers = nw_live_handlers,
                      .user_contexts = nw_live_user_contexts,
                      .tracked_resources = nw_live_resources,
                      .evaluations = nw_live_evaluations,
                      .decisions = nw_live_decisions,
                      .downloads = nw_live_downloads,
                      .web_contexts = nw_live_web_contexts};
}
