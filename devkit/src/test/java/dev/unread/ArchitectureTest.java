package dev.unread;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import org.junit.jupiter.api.Test;

/**
 * The layout's promise, on the main classes of every module: dependencies run one way, from the
 * developer kit down to the contract, and no two packages import each other.
 */
class ArchitectureTest {

    private static final String CONTRACT = "dev.unread.contract..";
    private static final String API = "dev.unread.api..";
    private static final String[] JOB = {
        "dev.unread",
        "dev.unread.config..",
        "dev.unread.events..",
        "dev.unread.state..",
        "dev.unread.sources..",
        "dev.unread.sinks.."
    };
    private static final String SAVEPOINT_TOOLS = "dev.unread.ops..";
    private static final String LOCAL_KAFKA = "dev.unread.kafka..";
    private static final String[] DEVKIT = {
        "dev.unread.cli..",
        "dev.unread.bench..",
        "dev.unread.generator..",
        "dev.unread.minicluster..",
        "dev.unread.cluster.."
    };

    /** Main classes only: test classes and the job's shared test fixtures are left out. */
    private static final JavaClasses MAIN =
            new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .withImportOption(ArchitectureTest::isMainCode)
                    .importPackages("dev.unread");

    private static boolean isMainCode(Location location) {
        return !location.contains("-tests.jar")
                && !location.contains("/test-classes/")
                && !location.contains("/dev/unread/testing/");
    }

    @Test
    void noTwoPackagesDependOnEachOther() {
        slices().matching("dev.unread.(*)..").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void theContractDependsOnNothingOfTheProjectAndOnlyOnTheClientsItNames() {
        noClasses()
                .that()
                .resideInAPackage(CONTRACT)
                .should()
                .dependOnClassesThat()
                .resideOutsideOfPackages(
                        CONTRACT,
                        "java..",
                        "javax..",
                        "com.fasterxml..",
                        "redis.clients..",
                        "org.slf4j..")
                .check(MAIN);
    }

    @Test
    void theApiDependsOnTheContractAloneOfTheProject() {
        noClasses()
                .that()
                .resideInAPackage(API)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(concat(JOB, SAVEPOINT_TOOLS, LOCAL_KAFKA, DEVKIT))
                .check(MAIN);
    }

    @Test
    void theJobDependsOnNoToolNorTheApi() {
        noClasses()
                .that()
                .resideInAnyPackage(JOB)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        concat(new String[] {API}, SAVEPOINT_TOOLS, LOCAL_KAFKA, DEVKIT))
                .check(MAIN);
    }

    @Test
    void nothingButTheDeveloperKitDependsOnIt() {
        noClasses()
                .that()
                .resideOutsideOfPackages(DEVKIT)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(DEVKIT)
                .check(MAIN);
    }

    @Test
    void theSavepointToolsAndTheBrokerDependOnNoToolAboveThem() {
        noClasses()
                .that()
                .resideInAnyPackage(SAVEPOINT_TOOLS, LOCAL_KAFKA)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(concat(new String[] {API}, DEVKIT))
                .check(MAIN);
    }

    private static String[] concat(String[] first, Object... rest) {
        java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of(first));
        for (Object r : rest) {
            if (r instanceof String[] many) {
                all.addAll(java.util.List.of(many));
            } else {
                all.add((String) r);
            }
        }
        return all.toArray(String[]::new);
    }
}
