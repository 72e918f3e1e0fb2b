package io.pointsinbox.ops;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.jboss.logging.Logger;

import io.quarkus.flyway.FlywayConfigurationCustomizer;
import io.quarkus.runtime.StartupEvent;

/**
 * Lets a stop request (SIGTERM: a pod deleted, a rollout) end a start that is waiting for its database. The schema
 * migration waits for PostgreSQL about 40 s ({@code quarkus.flyway.connect-retries}, so that a pod started before its
 * database does not exit into Kubernetes' restart back-off), and Quarkus does not interrupt its start-up thread on a
 * stop request: the process would keep waiting until the kubelet kills it at the end of the grace period (30 s). So
 * when the migration is configured, on the thread that runs it, a shutdown hook is registered that interrupts that
 * thread if a stop request comes before the application has started: the migration's wait ends at once, the start
 * fails with the migration's "Unable to obtain connection from database", and the process exits. Nothing has been
 * consumed before the start, so nothing is lost; the messages wait on the broker. The hook is removed once started.
 */
@ApplicationScoped
public class StopWhileWaitingForDatabase implements FlywayConfigurationCustomizer {

    private static final Logger LOG = Logger.getLogger(StopWhileWaitingForDatabase.class);

    private volatile Thread hook;
    private volatile boolean started;

    /** Called by Quarkus on the start-up thread, just before the migration connects. */
    @Override
    public void customize(FluentConfiguration configuration) {
        watch(Thread.currentThread());
    }

    synchronized void watch(Thread starting) {
        if (hook != null || started) {
            return;
        }
        hook = new Thread(() -> {
            if (!started && starting.isAlive() && !exiting(starting)) {
                LOG.info("Stop requested while the service was still starting (waiting for the database?): the start"
                        + " is abandoned; messages wait on the broker");
                starting.interrupt();
            }
        }, "points-inbox stop during start-up");
        try {
            Runtime.getRuntime().addShutdownHook(hook);
        } catch (IllegalStateException alreadyStopping) {
            hook = null;
        }
    }

    /**
     * Whether the thread is the one ending the process: a start that failed (the database never answered, say) exits
     * from the start-up thread, which runs the shutdown hooks; that is no stop request, and nothing is said.
     */
    static boolean exiting(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            if ("java.lang.Shutdown".equals(frame.getClassName())
                    || ("java.lang.Runtime".equals(frame.getClassName()) && "exit".equals(frame.getMethodName()))) {
                return true;
            }
        }
        return false;
    }

    /** After the migration and everything else Quarkus starts; before the messaging channels consume. */
    synchronized void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event) {
        started = true;
        if (hook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException alreadyStopping) {
                // the JVM is stopping: the hook sees started and leaves the thread alone
            }
            hook = null;
        }
    }
}
