package io.argus.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The wall time a test class may take, all its tests and its set-up together, on the loaded 2-core machine CI runs
 * on. Every top-level test class states one; {@link BudgetExtension} fails the class (naming it and its time) when it
 * runs over, so a test that grows slow is noticed the day it does, not when the suite crosses CI's limit.
 *
 * <p>Set it from what the class measured on such a machine with a parallel build beside it, with room for that
 * machine's spread (about twice the median), never from a quiet run.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Inherited
public @interface Budget {
    /** Seconds of wall time for the whole class. */
    int seconds();
}
