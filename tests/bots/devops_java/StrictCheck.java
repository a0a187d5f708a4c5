// botarena test helper (tests/bots/test_devops_course_model.py): parses request bodies of the devops
// host the way a strict Jackson service does. The records restate the field names, Java types and
// enum values of the course's 2024-25 model (spec 4); they are written for this check, not copied.
// Usage: java StrictCheck FILE, each line "base|unit<TAB>json". Exit 0 and "parsed N bodies", or 1.

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

public class StrictCheck {
    enum UnitType { PIONEER, WORKER, FIGHTER, CLERIC, SAPPER }

    enum UnitMoveType {
        TRAVEL, CONQUER_NEUTRAL_TILE, NEUTRALIZE_ENEMY_TILE, GENERATE_GOLD, ATTACK, PREPARE_DEFENSE,
        FORTIFY, PRAY, HEAL, CONVERT, DEPLOY_BOMB, CLEAR_BOMB, RETIRE, IDLE
    }

    record GameContext(long turnNumber, String gameId, int mapWidth, int mapHeight,
                       Map<UnitType, Integer> unitBaseHealth, Map<UnitType, Integer> unitCost,
                       Map<UnitMoveType, Integer> unitMoveCost) {}

    record Unit(int id, int owner, UnitType type, int damage, int health, boolean defenseBonus,
                boolean enlightened) {}

    record Location(int x, int y, boolean base, boolean resource, boolean fortified, boolean rigged,
                    Integer owner, Unit occupyingUnit) {}

    record Faction(int id, String name, Location base, long gold, int bombs, int territorySize,
                   int population, int populationCap, int kills, long score, boolean defeated,
                   int currentUpkeep) {}

    record BuildSlotState(int turnsLeft, UnitType unitType) {}

    // the model's Optional<BuildSlotState> is a nullable reference here (no jdk8 module needed)
    record BaseMoveInput(GameContext context, Faction faction, BuildSlotState buildSlotState) {}

    record UnitMoveInput(GameContext context, Faction faction, Unit unit, Location unitLocation,
                         List<Location> neighbouringLocations) {}

    public static void main(String[] args) throws Exception {
        ObjectMapper mapper = JsonMapper.builder()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .build();
        List<String> lines = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
        int number = 0;
        for (String line : lines) {
            number++;
            int tab = line.indexOf('\t');
            String kind = line.substring(0, tab);
            String json = line.substring(tab + 1);
            try {
                Class<?> type = kind.equals("base") ? BaseMoveInput.class : UnitMoveInput.class;
                mapper.readValue(json, type);
            } catch (Exception e) {
                System.out.println("line " + number + " (" + kind + "): " + e.getMessage().split("\n")[0]);
                System.exit(1);
            }
        }
        System.out.println("parsed " + lines.size() + " bodies");
    }
}
