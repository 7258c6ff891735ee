package io.argus.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/** The budget rule: a class without a budget fails, one over it fails naming its time, nested classes are their outer's. */
@Budget(seconds = 10)
class BudgetExtensionTest {
    @Budget(seconds = 3)
    static class Stated {}

    static class Unstated {}

    @Test
    void verdicts() {
        assertNull(BudgetExtension.verdict(Stated.class, 2.9, 1));
        assertNull(BudgetExtension.warning(Stated.class, 2.9, 1));
        // 3 s budget: fails above 3 * 1.5 + 5 = 9.5 s; between 3 and 9.5 s it passes with a warning
        assertNull(BudgetExtension.verdict(Stated.class, 9.4, 1), "within the grace");
        String warned = BudgetExtension.warning(Stated.class, 9.4, 1);
        assertTrue(warned.contains("BudgetExtensionTest$Stated took 9.4 s, over its budget of 3 s (it fails above 9.5 s)"), warned);
        String over = BudgetExtension.verdict(Stated.class, 9.6, 1);
        assertTrue(over.contains("BudgetExtensionTest$Stated took 9.6 s, over its budget of 3 s and the grace above it (9.5 s)"), over);
        assertNull(BudgetExtension.verdict(Stated.class, 18.9, 2), "scaled for a slower machine");
        assertTrue(BudgetExtension.verdict(Stated.class, 19.1, 2).contains("(x 2.00)"));
        // the JVM's warm-up: up to 20 s over the limit, once per JVM (afterAll keeps the once)
        assertTrue(BudgetExtension.withinWarmUp(Stated.class, 29.4, 1));
        assertFalse(BudgetExtension.withinWarmUp(Stated.class, 29.6, 1));
        assertFalse(BudgetExtension.withinWarmUp(Unstated.class, 0.1, 1), "no budget, no forgiveness");
        String none = BudgetExtension.verdict(Unstated.class, 0.1, 1);
        assertTrue(none.contains("states no time budget: add @Budget(seconds = N)"), none);
    }

    // Classes run through the JUnit engine below (not by the build: they are not top-level test classes named *Test).
    static class WithoutBudget {
        @Test
        void passes() {}
    }

    @Budget(seconds = 30)
    static class WithBudget {
        @Test
        void passes() {}

        @Nested
        class Inner {
            @Test
            void alsoPasses() {}
        }
    }

    @Test
    void aClassWithoutBudgetFailsAfterItsTestsAndOneWithinPasses() {
        Events without = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .selectors(selectClass(WithoutBudget.class)).execute().containerEvents();
        assertEquals(1, without.failed().count(), "the class container fails");
        String message = without.failed().stream().findFirst().orElseThrow().getPayload(org.junit.platform.engine.TestExecutionResult.class)
                .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable).orElseThrow().getMessage();
        assertTrue(message.contains("WithoutBudget states no time budget"), message);

        Events within = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .selectors(selectClass(WithBudget.class)).execute().containerEvents();
        assertEquals(0, within.failed().count(), "within budget, the nested class counted with its outer one");
    }
}
