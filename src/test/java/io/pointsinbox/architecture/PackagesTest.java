package io.pointsinbox.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The packages by feature stay a layered graph: adapters (api, messaging) on top, the handler (points) and the
 * idempotency decision (inbox) below them, the message contract, operations and configuration at the bottom.
 */
class PackagesTest {

    private static JavaClasses classes;

    @BeforeAll
    static void load() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.pointsinbox");
    }

    @Test
    void packagesDoNotDependOnEachOtherInCircles() {
        slices().matching("io.pointsinbox.(*)..").should().beFreeOfCycles().check(classes);
    }

    @Test
    void onlyTheAdaptersKnowTheTransports() {
        noClasses().that().resideInAnyPackage("io.pointsinbox.points..", "io.pointsinbox.inbox..",
                "io.pointsinbox.contract..", "io.pointsinbox.ops..", "io.pointsinbox.config..")
                .should().dependOnClassesThat().resideInAnyPackage("io.pointsinbox.api..", "io.pointsinbox.messaging..")
                .check(classes);
    }

    @Test
    void theContractDependsOnNothingOfTheServiceButItsSettingsAndTheInboxEntry() {
        noClasses().that().resideInAPackage("io.pointsinbox.contract..").should().dependOnClassesThat()
                .resideInAnyPackage("io.pointsinbox.points..", "io.pointsinbox.ops..", "io.pointsinbox.api..",
                        "io.pointsinbox.messaging..")
                .check(classes);
    }

    @Test
    void metricsAndOperationsDoNotDecideAboutConsumption() {
        noClasses().that().resideInAPackage("io.pointsinbox.ops..").should().dependOnClassesThat()
                .haveSimpleName("ConsumptionSwitch").check(classes);
    }
}
