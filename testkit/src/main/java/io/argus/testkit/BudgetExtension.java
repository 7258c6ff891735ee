package io.argus.testkit;

import java.util.Locale;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Enforces {@link Budget}: a top-level test class that states none, or that takes much longer than it states, fails
 * after its tests have run, with its name, its time and its budget in the message (so the build fails and says which
 * test grew). Nested classes count toward their outer class.
 *
 * <p>"Much longer" is more than {@link #GRACE_FACTOR} times the budget plus {@link #GRACE_SECONDS}: one class's time
 * in a tier depends on what ran before it in the same JVM (the first to start the app pays for class loading and the
 * JIT) and on the CI machine's neighbours, which moved a 4 s class to 13 s on CI. A class between its budget and that
 * limit passes and prints a warning naming itself, so growth is seen before it fails. Registered for every test of the project by JUnit's extension
 * auto-detection ({@code META-INF/services}; the parent pom turns auto-detection on).
 *
 * <p>{@code ARGUS_BUDGET_SCALE} (or {@code -Dargus.budget.scale}) multiplies every budget, for a machine known to be
 * slower than CI's (a laptop on battery, a debugger attached); CI runs with 1.
 */
public final class BudgetExtension implements BeforeAllCallback, AfterAllCallback {
    /** A class fails above {@code budget * GRACE_FACTOR + GRACE_SECONDS} (times the scale). */
    static final double GRACE_FACTOR = 1.5;
    static final double GRACE_SECONDS = 5;

    /**
     * Once per JVM, a class over its limit by no more than this is forgiven: whichever class first loads the native
     * libraries (oneDNN, FFmpeg, OpenCV) and warms the JIT pays seconds that are not its own, and which class that is
     * depends on the run order (a 1 s gradient test took 14.6 s as the first of its module to load oneDNN).
     */
    static final double WARM_UP_SECONDS = 20;
    private static final java.util.concurrent.atomic.AtomicBoolean WARM_UP_USED = new java.util.concurrent.atomic.AtomicBoolean();

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(BudgetExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        if (counted(context)) context.getStore(NS).put("start", System.nanoTime());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (!counted(context)) return;
        Long start = context.getStore(NS).get("start", Long.class);
        if (start == null) return;
        double seconds = (System.nanoTime() - start) / 1e9;
        String failure = verdict(context.getRequiredTestClass(), seconds, scale());
        if (failure != null && withinWarmUp(context.getRequiredTestClass(), seconds, scale())
                && WARM_UP_USED.compareAndSet(false, true)) {
            System.err.println("budget warning: " + failure + " (forgiven once in this JVM, as the class that paid the "
                    + "JVM's warm-up: up to " + (int) WARM_UP_SECONDS + " s over)");
            return;
        }
        if (failure != null) throw new AssertionError(failure);
        String warning = warning(context.getRequiredTestClass(), seconds, scale());
        if (warning != null) System.err.println(warning);
    }

    /** A line for a class over its budget but within the grace, or null. */
    static String warning(Class<?> test, double seconds, double scale) {
        Budget budget = test.getAnnotation(Budget.class);
        if (budget == null || seconds <= budget.seconds() * scale) return null;
        return String.format(Locale.ROOT, "budget warning: %s took %.1f s, over its budget of %d s (it fails above %.1f s)",
                test.getName(), seconds, budget.seconds(), limit(budget, scale));
    }

    /** Whether a class with a budget is over its limit by no more than {@link #WARM_UP_SECONDS}. */
    static boolean withinWarmUp(Class<?> test, double seconds, double scale) {
        Budget budget = test.getAnnotation(Budget.class);
        return budget != null && seconds <= limit(budget, scale) + WARM_UP_SECONDS * scale;
    }

    static double limit(Budget budget, double scale) {
        return (budget.seconds() * GRACE_FACTOR + GRACE_SECONDS) * scale;
    }

    /** Why a class that took {@code seconds} fails its budget (times {@code scale}), or null when it does not. */
    static String verdict(Class<?> test, double seconds, double scale) {
        Budget budget = test.getAnnotation(Budget.class);
        if (budget == null) {
            return String.format(Locale.ROOT, "%s states no time budget: add @Budget(seconds = N) "
                    + "(io.argus.testkit.Budget) from its time on a loaded 2-core machine (here it took %.1f s)",
                    test.getName(), seconds);
        }
        if (seconds > limit(budget, scale)) {
            return String.format(Locale.ROOT, "%s took %.1f s, over its budget of %d s%s and the grace above it "
                    + "(%.1f s): make it faster, or move what is slow to the system tier or a script", test.getName(),
                    seconds, budget.seconds(), scale != 1 ? String.format(Locale.ROOT, " (x %.2f)", scale) : "",
                    limit(budget, scale));
        }
        return null;
    }

    /** Top-level classes only: a nested class's time is part of its outer class's. */
    private static boolean counted(ExtensionContext context) {
        Class<?> test = context.getTestClass().orElse(null);
        return test != null && !test.isAnnotationPresent(Nested.class);
    }

    static double scale() {
        String s = System.getProperty("argus.budget.scale", System.getenv("ARGUS_BUDGET_SCALE"));
        if (s == null || s.isBlank()) return 1;
        try {
            double v = Double.parseDouble(s.strip());
            return v > 0 ? v : 1;
        } catch (NumberFormatException e) {
            return 1;
        }
    }
}
